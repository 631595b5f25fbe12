// Stage "spawn": Python's workers, and the binaries unpacked for them. Each worker is made from one
// Blob: a part of the asset "code" (un-gzipped here once) followed by WORKER_SCRIPT (worker.js and
// its imports, bundled by sitegen/site/page_script.py into one classic script). The code is the zstd
// decoder's script (its first python.decoder_size bytes, sitegen/runtime/bundle.py) and then Pyodide's
// JavaScript: Python's workers run Pyodide's part, and the unpacker, the one worker that decodes
// the zstd binaries (and keeps what was unpacked in Cache Storage), the decoder's. A page opened from disk, or the single file, has no URL a worker
// could be loaded from; a Blob's works from every origin, under the page's own
// Content-Security-Policy (worker-src blob:). The page itself never runs Pyodide.
//
// A classic worker, not a module: a module worker's script is fetched in CORS mode, which a page
// opened from disk (origin "null") is never granted, not even for its own Blob. Pyodide refuses to
// start in a classic worker, which it detects by whether importScripts works, because it would
// load its other scripts with import(); here it loads none (they are all in the Blob, and
// createPyodideModule is handed to it), and the worker hides importScripts before Pyodide looks.
//
// The loader's whole interface with the modules after it, which bench's stock loader
// (bench/stock_spawn.js) has too:
//   pythonWorker(config) → Promise<Worker>   a new worker, told to start Python; its first message
//                                            is "ready" or "failed" (stage "worker")
//   replaceWheel(python, wheel)              `serve` after a model edit (stage "python")

import { openAssets } from "./assets.js";
import { WORKER_SCRIPT } from "./contract.js";
import { progress, say } from "./progress.js";
import { fromWorker, toWorker } from "./protocol.js";

const WORKER_PROLOGUE = `"use strict";
// Pyodide is in this script already: nothing is imported (see stage "spawn" of static/kvpage.js).
globalThis.importScripts = undefined;
`;

let opened = null; // the assets, opened for the first worker and shared by every later one
let workerURLs = null; // Promise of {python, unpacker, fresh}: the two kinds of worker's Blob URLs, made once
let compiledWasm = null; // the WebAssembly.Module compiled already: later workers skip compiling
// The wasm, snapshot and wheel (each unpacked, an ArrayBuffer) are lent to one worker at a time:
// transferred to it (not copied), and transferred back once it has read them ("returned"), in
// about a tenth of a second; a worker made meanwhile waits for them. (A worker that fails before
// it gives them back keeps them: then the page can make no other, and says so.)
let held = null; // {name: Promise of an ArrayBuffer}: each, when it is home
let readied = null;
let unready = null;
// Settles with the first worker to say: "ready" resolves it, a failure before that rejects it (the
// page then makes no other, stage "python"); what later workers say changes nothing.
const firstReady = new Promise((resolve, reject) => ((readied = resolve), (unready = reject)));
let everReady = false;
firstReady.then(() => (everReady = true), () => {});

// The gzip bytes `packed` (an ArrayBuffer) un-gzipped into one buffer of `size` bytes, the size
// the build recorded; fails with `broken()` if they are cut short, damaged (gzip's CRC), not gzip
// or not the file this page was built with. Here, on the page: only the small binaries are gzip.
async function gunzip(packed, size, broken) {
  const bytes = new Uint8Array(size);
  let at = 0;
  const source = new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(packed));
      controller.close();
    },
  });
  for (const reader = source.pipeThrough(new DecompressionStream("gzip")).getReader(); ; ) {
    const { done, value } = await reader.read().catch(() => {
      throw broken();
    });
    if (done) break;
    if (at + value.length > bytes.length) throw broken();
    bytes.set(value, at);
    at += value.length;
  }
  if (at !== bytes.length) throw broken();
  return bytes.buffer;
}

// How far the first worker and the unpacker got, and when (`at`, ms since the epoch, from their
// clock), as marks of the page's timeline (kvpage:NAME), which bench/run.py prints.
const marked = (name, at) => performance.mark(`kvpage:${name}`, { startTime: at - performance.timeOrigin });

const failure = (python, name) => () => new Error(`could not load ${python.index_url}${python.packed[name]}`);

// `serve` after a model edit: the new wheel (packed, as fetched) unpacked, for the running workers
// (resolves to it) and for every worker made from now on.
export async function replaceWheel(python, wheel) {
  const bytes = await gunzip(wheel, python.unpacked[python.wheel], failure(python, python.wheel));
  if (held !== null) held = { ...held, [python.wheel]: Promise.resolve(bytes.slice(0)) };
  return bytes;
}

// The first worker opens the assets, and the page's runtime line and progress events follow them.
function openWithProgress(config) {
  const python = config.python;
  let loaded = 0;
  let shown = 0;
  const report = (force) => {
    if (opened.total === 0 || (!force && performance.now() - shown < 100)) return;
    shown = performance.now();
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    say(`Loading Python: ${mb(loaded)} of ${mb(opened.total)} MB…`);
    progress("downloading", loaded, opened.total);
  };
  opened = openAssets(config, (bytes) => {
    loaded += bytes;
    report(false);
  });
  report(true);
  Promise.all([python.code, python.wasm, python.snapshot, python.wheel].map(opened.asset)).then(() => {
    report(true);
    say("Starting Python…");
    progress("starting", loaded, opened.total);
  }, () => {});
}

// The Blob URLs of the two kinds of worker, from the asset "code" un-gzipped (or read back from
// Cache Storage as it is): {python, unpacker, fresh}; fresh, the unpacked code (an ArrayBuffer) to
// keep for the next visit, or null.
function workerCode(python) {
  workerURLs ??= opened.asset(python.code).then(async ({ bytes, unpacked }) => {
    const size = python.unpacked[python.code];
    const code = new Uint8Array(unpacked ? bytes : await gunzip(bytes, size, failure(python, python.code)));
    const worker = `\n${WORKER_SCRIPT}\n`;
    const url = (part) => URL.createObjectURL(new Blob([WORKER_PROLOGUE, part, worker], { type: "text/javascript" }));
    const [decoder, pyodide] = [code.subarray(0, python.decoder_size), code.subarray(python.decoder_size)];
    return { unpacker: url(decoder), python: url(pyodide), fresh: unpacked ? null : code.buffer };
  });
  return workerURLs;
}

// The page's one unpacker, made as soon as the code is in (so it is ready when the bytes arrive)
// if any zstd binary comes packed, not from Cache Storage: a Promise of {worker, left}, or of null.
// It decodes them one after another as they arrive, while Python's worker reads Pyodide's
// JavaScript and sets itself up (one worker more, not one per binary: on two cores the cost of
// starting each outweighed decoding two at once), and is terminated once `left` reaches 0.
let unpacker = null;
function unpackerFor(python) {
  unpacker ??= (async () => {
    const names = [python.wasm, python.snapshot, python.wheel].filter((name) => python.encoding[name] === "zstd");
    const left = (await Promise.all(names.map(opened.comesPacked))).filter(Boolean).length;
    return left === 0 ? null : { worker: new Worker((await workerCode(python)).unpacker), left };
  })();
  unpacker.catch(() => {}); // the binaries' own failures are the ones reported
  return unpacker;
}

// One zstd binary fewer for the unpacker (decoded, or never to come): the last one ends it, unless
// it is to keep them in Cache Storage (keepFresh ends it then).
function unpackerDone(python) {
  const last = (made) => made && (made.left -= 1) === 0 && !opened.cacheable && made.worker.terminate();
  unpackerFor(python).then(last, () => {});
}

// The unpacker ended, if there is one, with what it holds.
function endUnpacker() {
  unpacker?.then((made) => made?.worker.terminate(), () => {});
}

// The binaries `names` unpacked here, not read from Cache Storage, kept there for the next visit by
// the unpacker (made now if none was): what it decoded, and `files` ({name: ArrayBuffer}, the
// page's own copies, transferred) of the others. Sets <html data-python-cache="kept"> once they are.
async function keepFresh(python, names, files) {
  const made = (await unpackerFor(python)) ?? { worker: new Worker((await workerCode(python)).unpacker) };
  try {
    /** @type {{error?: string}} */
    const answer = await new Promise((resolve) => {
      made.worker.addEventListener("message", (event) => {
        const message = fromWorker(event);
        if (message?.type === "kept") resolve(message);
      });
      made.worker.addEventListener("error", (event) => (event.preventDefault(), resolve({ error: event.message })));
      toWorker(made.worker, { type: "keep", where: opened.keptWhere(names), files }, Object.values(files));
    });
    if (!answer.error) document.documentElement.dataset.pythonCache = "kept";
  } finally {
    made.worker.terminate();
  }
}

// The zstd binary `name`, whose packed bytes are `packed`, decoded by the unpacker. Resolves to
// the unpacked bytes.
async function unpackElsewhere(python, name, packed) {
  const made = await unpackerFor(python);
  if (made === null) throw failure(python, name)(); // Cache Storage said it would come unpacked
  try {
    /** @type {import("./protocol.js").ToPage} */
    const answer = await new Promise((resolve, reject) => {
      const answered = (event) => {
        const message = fromWorker(event);
        if (message && "name" in message && message.name === name) resolve(message);
      };
      made.worker.addEventListener("message", answered);
      made.worker.addEventListener("error", (event) => (event.preventDefault(), reject(failure(python, name)())));
      /** @type {import("./protocol.js").UnpackMessage} */
      const job = { type: "unpack", name, bytes: packed, size: python.unpacked[name], keep: opened.cacheable };
      toWorker(made.worker, job, [packed]);
    });
    if (answer?.type !== "unpacked") throw failure(python, name)();
    marked(`unpacked-${name}`, answer.at);
    return answer.bytes;
  } finally {
    unpackerDone(python);
  }
}

// The binaries a worker needs, each unpacked as soon as it is in ({name: Promise of an
// ArrayBuffer}): read back from Cache Storage as they are, zstd in the unpacker, gzip here; what
// was not read back (the code too) is kept for the next visit once the first worker is ready
// (keepFresh), over http(s) only, where Cache Storage is: each copied as it is unpacked, before it
// is lent, by the unpacker off the page (the small gzip ones here).
function unpackedAssets(python) {
  const names = [python.wasm, python.snapshot, python.wheel];
  const fresh = new Set();
  const copies = {}; // of the gzip binaries unpacked here, for Cache Storage (the unpacker keeps its own)
  const unpack = async (name) => {
    const zstd = python.encoding[name] === "zstd";
    if (zstd) unpackerFor(python);
    let asset;
    try {
      asset = await opened.asset(name);
    } catch (error) {
      if (zstd) unpackerDone(python);
      throw error;
    }
    if (asset.unpacked) return asset.bytes;
    fresh.add(name);
    if (zstd) return unpackElsewhere(python, name, asset.bytes);
    const bytes = await gunzip(asset.bytes, python.unpacked[name], failure(python, name));
    if (opened.cacheable) copies[name] = bytes.slice(0);
    return bytes;
  };
  const each = Object.fromEntries(names.map((name) => [name, unpack(name)]));
  Promise.all([workerCode(python), ...Object.values(each)]).then(([code]) => {
    if (code.fresh !== null) fresh.add(python.code);
    const files = code.fresh === null ? copies : { ...copies, [python.code]: code.fresh };
    // Over http the unpacker waits, with its copies, to keep them once Python is up; if Python's
    // first worker fails to start instead, no keep comes, and it goes.
    if (fresh.size === 0) document.documentElement.dataset.pythonCache = "hit";
    else if (opened.cacheable) firstReady.then(() => keepFresh(python, [...fresh], files), endUnpacker).catch(() => {});
  }, endUnpacker);
  return each;
}

// Lends the binaries `held` holds to `worker`, each as soon as it is in (the wasm compiles while the
// snapshot still arrives): they come home, all at once, when it says "returned". Resolves once
// every one is lent; rejects if the worker fails first (a wasm that does not compile fails it
// before the snapshot is in, and no one else listens to it yet: the pool hears it from here).
function lend(worker, python) {
  const lending = held;
  let home, kept, stopped;
  const back = new Promise((resolve, reject) => ((home = resolve), (kept = reject)));
  const failedFirst = new Promise((_, reject) => (stopped = reject));
  held = Object.fromEntries(Object.keys(lending).map((name) => [name, back.then((assets) => assets[name])]));
  for (const promise of [back, ...Object.values(held)]) promise.catch(() => {}); // the next worker reports it
  const keptBy = (why) => {
    const error = new Error(`Python's files went with a worker that failed (${why}); reload the page`);
    unready(error);
    kept(error);
  };
  worker.addEventListener("message", (event) => {
    const message = fromWorker(event);
    if (message?.type === "returned") home(message.assets);
    else if (message?.type === "compiled") compiledWasm ??= message.module;
    else if (message?.type === "ready") readied();
    else if (message?.type === "progress" && !everReady) marked(`worker-${message.phase}`, message.at);
    else if (message?.type === "failed") (keptBy(message.error), stopped(new Error(message.error)));
  });
  worker.addEventListener("error", (event) => {
    keptBy(event.message || "it stopped");
    stopped(new Error(event.message || "Python's worker stopped"));
  });
  const sent = Object.entries(lending).map(([name, promise]) =>
    promise.then((bytes) => {
      const module = name === python.wasm ? compiledWasm : null;
      toWorker(worker, { type: "asset", name, bytes, module }, [bytes]);
    }),
  );
  const all = Promise.all(sent);
  all.catch((error) => kept(error));
  return Promise.race([all, failedFirst]);
}

export function pythonWorker(config) {
  return (async () => {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    if (typeof Worker !== "function") throw new Error("this browser has no Web Workers");
    if (typeof DecompressionStream !== "function") throw new Error("this browser cannot decompress gzip");
    const python = config.python;
    if (opened === null) openWithProgress(config);
    held ??= unpackedAssets(python);
    // The worker is made, and told to start, as soon as its code is in: it reads Pyodide's
    // JavaScript and Pyodide sets itself up while the wasm and the snapshot still arrive and are
    // unpacked; it gets each as soon as it is.
    const url = (await workerCode(python)).python;
    if (!everReady) performance.mark("kvpage:worker-made");
    const worker = new Worker(url);
    toWorker(worker, { type: "start", runtime: python, page: document.baseURI });
    try {
      await lend(worker, python);
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return worker;
  })();
}

