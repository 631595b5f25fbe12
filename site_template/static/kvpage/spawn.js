// Stage "spawn": Python's workers and the unpacker, each from a Blob (a page opened from disk has no
// URL a worker could load; a classic worker, as a module worker's script needs CORS), and the binaries
// unpacked and lent to each in turn. Its interface, which bench/stock_spawn.js has too: pythonWorker(config,
// listener), whose listener hears every message the worker says (the one listener on it), and
// replaceWheel(python, wheel) for `serve` (decision 0060; why a classic worker from a Blob: 0047).

import { openAssets } from "./assets.js";
import { WORKER_SCRIPT } from "./contract.js";
import { progress, say } from "./progress.js";
import { fromWorker, toPython } from "./protocol.js";
import { Unpacking } from "./unpacking.js";
import { awaitedElsewhere } from "./settled.js";

/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./protocol.js").FromPython} FromPython */
/** @typedef {import("./assets.js").Opened} Opened */
/** @typedef {{heard(message: FromPython): void, broke(why: string): void}} Listener what a worker says, and that it stopped */

const WORKER_PROLOGUE = `"use strict";
// Pyodide is in this script already: nothing is imported (see stage "spawn" of static/kvpage.js).
globalThis.importScripts = undefined;
`;

/** @type {Opened | null} the assets, opened for the first worker and shared by every later one */
let opened = null;
/** @type {Promise<{python: string, unpacker: string, fresh: ArrayBuffer | null}> | null} the two kinds of worker's Blob URLs, made once */
let workerURLs = null;
/** @type {WebAssembly.Module | null} the wasm compiled already: later workers skip compiling */
let compiledWasm = null;
// The wasm, snapshot and wheel (each unpacked, an ArrayBuffer) are lent to one worker at a time:
// transferred to it (not copied), and transferred back once it has read them ("returned"), in
// about a tenth of a second; a worker made meanwhile waits for them. (A worker that fails before
// it gives them back keeps them: then the page can make no other, and says so.)
/** @type {Record<string, Promise<ArrayBuffer>> | null} each binary, when it is home */
let held = null;
/** @type {() => void} */
let readied = () => undefined;
/** @type {(error: Error) => void} */
let unready = () => undefined;
// Settles with the first worker to say: "ready" resolves it, a failure before that rejects it (the
// page then makes no other, stage "python"); what later workers say changes nothing.
/** @type {Promise<void>} */
const firstReady = new Promise((resolve, reject) => ((readied = resolve), (unready = reject)));
let everReady = false;
firstReady.then(() => (everReady = true), awaitedElsewhere); // the pool reports a start that failed

// The gzip bytes `packed` (an ArrayBuffer) un-gzipped into one buffer of `size` bytes, the size
// the build recorded; fails with `broken()` if they are cut short, damaged (gzip's CRC), not gzip
// or not the file this page was built with. Here, on the page: only the small binaries are gzip.
/** @param {ArrayBuffer} packed @param {number} size @param {() => Error} broken @returns {Promise<ArrayBuffer>} */
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
    const { done, value } = await reader.read().catch((error) => {
      console.warn("kvpage: gunzip:", error);
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
/** @param {string} name @param {number} at */
const marked = (name, at) => performance.mark(`kvpage:${name}`, { startTime: at - performance.timeOrigin });

/** @param {Runtime} python @param {string} name */
const failure = (python, name) => () => new Error(`could not load ${python.index_url}${python.packed[name]}`);

// `serve` after a model edit: the new wheel (packed, as fetched) unpacked, for the running workers
// (resolves to it) and for every worker made from now on.
/** @param {Runtime} python @param {ArrayBuffer} wheel */
export async function replaceWheel(python, wheel) {
  const bytes = await gunzip(wheel, python.unpacked[python.wheel], failure(python, python.wheel));
  if (held !== null) held = { ...held, [python.wheel]: Promise.resolve(bytes.slice(0)) };
  return bytes;
}

// The first worker opens the assets, and the page's runtime line and progress events follow them.
/** @param {PageConfig} config @returns {Opened} */
function openWithProgress(config) {
  const python = config.python;
  /** @type {Opened | null} */
  let made = null;
  let loaded = 0;
  let shown = 0;
  /** @param {boolean} force */
  const report = (force) => {
    if (made === null || made.total === 0 || (!force && performance.now() - shown < 100)) return;
    shown = performance.now();
    const mb = (/** @type {number} */ bytes) => (bytes / 1e6).toFixed(1);
    say(`Loading Python: ${mb(loaded)} of ${mb(made.total)} MB…`);
    progress("downloading", loaded, made.total);
  };
  made = openAssets(config, (bytes) => {
    loaded += bytes;
    report(false);
  });
  report(true);
  const all = made;
  Promise.all([python.code, python.wasm, python.snapshot, python.wheel].map(all.asset)).then(() => {
    report(true);
    say("Starting Python…");
    progress("starting", loaded, all.total);
  }, awaitedElsewhere); // the worker that waits for them reports it
  return all;
}

// The Blob URLs of the two kinds of worker, from the asset "code" un-gzipped (or read back from
// Cache Storage as it is): {python, unpacker, fresh}; fresh, the unpacked code (an ArrayBuffer) to
// keep for the next visit, or null.
/** @param {Runtime} python @param {Opened} assets */
function workerCode(python, assets) {
  workerURLs ??= assets.asset(python.code).then(async ({ bytes, unpacked }) => {
    const size = python.unpacked[python.code];
    const code = new Uint8Array(unpacked ? bytes : await gunzip(bytes, size, failure(python, python.code)));
    const worker = `\n${WORKER_SCRIPT}\n`;
    const url = (/** @type {Uint8Array<ArrayBuffer>} */ part) => URL.createObjectURL(new Blob([WORKER_PROLOGUE, part, worker], { type: "text/javascript" }));
    const [decoder, pyodide] = [code.subarray(0, python.decoder_size), code.subarray(python.decoder_size)];
    return { unpacker: url(decoder), python: url(pyodide), fresh: unpacked ? null : code.buffer };
  });
  return workerURLs;
}

// The binaries a worker needs, each unpacked as soon as it is in ({name: Promise of an
// ArrayBuffer}): read back from Cache Storage as they are, zstd in the unpacker, gzip here; what
// was not read back (the code too) is kept for the next visit once the first worker is ready
// (Unpacking.keep), over http(s) only, where Cache Storage is: each copied as it is unpacked, before it
// is lent, by the unpacker off the page (the small gzip ones here).
/** @param {Runtime} python @param {Opened} assets @returns {Record<string, Promise<ArrayBuffer>>} */
function unpackedAssets(python, assets) {
  const names = [python.wasm, python.snapshot, python.wheel];
  const fresh = new Set();
  /** @type {Record<string, ArrayBuffer>} */
  const copies = {}; // of the gzip binaries unpacked here, for Cache Storage (the unpacker keeps its own)
  const unpacking = new Unpacking(python, assets, async () => (await workerCode(python, assets)).unpacker);
  const unpack = async (/** @type {string} */ name) => {
    const zstd = python.encoding[name] === "zstd";
    if (zstd) unpacking.unpacker();
    let asset;
    try {
      asset = await assets.asset(name);
    } catch (error) {
      if (zstd) unpacking.done();
      throw error;
    }
    if (asset.unpacked) return asset.bytes;
    fresh.add(name);
    if (zstd) return unpacking.unpack(name, asset.bytes, failure(python, name));
    const bytes = await gunzip(asset.bytes, python.unpacked[name], failure(python, name));
    if (assets.cacheable) copies[name] = bytes.slice(0);
    return bytes;
  };
  const each = Object.fromEntries(names.map((name) => [name, unpack(name)]));
  Promise.all([workerCode(python, assets), ...Object.values(each)]).then(([code]) => {
    if (code.fresh !== null) fresh.add(python.code);
    const files = code.fresh === null ? copies : { ...copies, [python.code]: code.fresh };
    // Over http the unpacker waits, with its copies, to keep them once Python is up; if Python's
    // first worker fails to start instead, no keep comes, and it goes.
    if (fresh.size === 0) document.documentElement.dataset.pythonCache = "hit";
    else if (assets.cacheable) {
      const kept = firstReady.then(() => unpacking.keep([...fresh], files), () => unpacking.end());
      kept.catch((error) => console.info("kvpage: the unpacked binaries are not kept:", error));
    }
  }, () => unpacking.end());
  return each;
}

// Lends the binaries `held` holds to `worker`, each as soon as it is in (the wasm compiles while the
// snapshot still arrives): they come home, all at once, when it says "returned" (lendingHeard).
// Resolves once every one is lent.
/** @param {Worker} worker @param {Runtime} python @param {Record<string, Promise<ArrayBuffer>>} lending @param {Promise<Record<string, ArrayBuffer>>} back */
function lend(worker, python, lending, back) {
  held = Object.fromEntries(Object.keys(lending).map((name) => [name, back.then((assets) => assets[name])]));
  for (const promise of [back, ...Object.values(held)]) promise.catch(awaitedElsewhere); // the next worker reports it
  const sent = Object.entries(lending).map(([name, promise]) =>
    promise.then((bytes) => {
      const module = name === python.wasm ? compiledWasm : null;
      toPython(worker, { type: "asset", name, bytes, module }, [bytes]);
    }),
  );
  return Promise.all(sent);
}

/**
 * What the loader reads of a worker's messages (the lent bytes back, the compiled wasm, the first
 * start), before its listener hears them; `keptBy(why)`, the lent bytes went with a worker that failed.
 * @param {FromPython} message @param {(assets: Record<string, ArrayBuffer>) => void} home @param {(why: string) => void} keptBy
 */
function lendingHeard(message, home, keptBy) {
  if (message.type === "returned") home(message.assets);
  else if (message.type === "compiled") compiledWasm ??= message.module;
  else if (message.type === "ready") readied();
  else if (message.type === "progress" && !everReady) marked(`worker-${message.phase}`, message.at);
  else if (message.type === "failed") keptBy(message.error);
}

/**
 * A new Python's worker, told to start: `listener` hears every message it says, and that it broke.
 * @param {PageConfig} config @param {Listener} listener @returns {Promise<Worker>}
 */
export function pythonWorker(config, listener) {
  return (async () => {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    if (typeof Worker !== "function") throw new Error("this browser has no Web Workers");
    if (typeof DecompressionStream !== "function") throw new Error("this browser cannot decompress gzip");
    const python = config.python;
    opened ??= openWithProgress(config);
    const lending = (held ??= unpackedAssets(python, opened));
    // The worker is made, and told to start, as soon as its code is in: it reads Pyodide's
    // JavaScript and Pyodide sets itself up while the wasm and the snapshot still arrive and are
    // unpacked; it gets each as soon as it is.
    const url = (await workerCode(python, opened)).python;
    if (!everReady) performance.mark("kvpage:worker-made");
    const worker = new Worker(url);
    /** @type {(assets: Record<string, ArrayBuffer>) => void} */
    let home = () => undefined;
    /** @type {(error: Error) => void} */
    let kept = () => undefined;
    /** @type {Promise<Record<string, ArrayBuffer>>} */
    const back = new Promise((resolve, reject) => ((home = resolve), (kept = reject)));
    const keptBy = (/** @type {string} */ why) => {
      const error = new Error(`Python's files went with a worker that failed (${why}); reload the page`);
      unready(error);
      kept(error);
    };
    worker.addEventListener("message", (/** @type {MessageEvent<FromPython>} */ event) => {
      const message = fromWorker(event);
      lendingHeard(message, home, keptBy);
      listener.heard(message);
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      keptBy(event.message || "it stopped");
      listener.broke(event.message || "Python's worker stopped");
    });
    toPython(worker, { type: "start", runtime: python, page: document.baseURI });
    try {
      await lend(worker, python, lending, back);
    } catch (error) {
      kept(error instanceof Error ? error : new Error(String(error)));
      worker.terminate();
      throw error;
    }
    return worker;
  })();
}
