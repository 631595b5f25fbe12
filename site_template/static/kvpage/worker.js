// Stage "worker": Python's Web Worker itself, the worker's entry module. Runs in the worker, never on
// the page: the build bundles it (with image.js, hooks.js, protocol.js and swap.py) into one classic
// script, and the page makes each worker from a Blob of Pyodide's JavaScript followed by that
// script (stage "spawn"), so it may import nothing from the page's modules but the protocol.
// reader.py, which only a reader's Run needs, is not in it: the editor's script sends its text.
//
// Python is not started here, it is restored: the build ran Pyodide once with kvpage imported and
// shipped its memory (sitegen/runtime/snapshot.py), as a patch over the wasm's data segments
// (stage "image"). The page lends the binaries unpacked (the wasm, the snapshot, the wheel), the
// same ones to every worker it makes; the wasm is compiled here unless the page has it compiled
// already, and Pyodide's own requests are answered from memory (stage "hooks").
//
// The same function also runs as an unpacker: a worker the page makes, with only the zstd
// decoder's script before it (no Pyodide), to decode the zstd binaries off the page, one after
// another as they arrive, and keep them in Cache Storage (stage "spawn"; the decoder is the
// build's, sitegen/runtime/packing.py).
//
// The messages, all the page and this worker say to each other, are typed once, in protocol.js.
// Each handler below is one message type. The page sends calls only once the worker is ready, one at a time: a worker that
// does not answer in time is terminated, not asked to stop (no SharedArrayBuffer in a static site).
// Python is called with a string and answers a string: no Python object crosses to the page.
//
// This relies on private Pyodide API (_loadSnapshot, the instantiateStreaming call, the snapshot
// layout): the build refuses any Pyodide but the files it was written for (their sha256 in
// sitegen/runtime/pyodide-pins.json), and the worker checks the version it started.

import { snapshotImage } from "./image.js";
import { interceptPyodide } from "./hooks.js";
import { fromPage, toPage } from "./protocol.js";
import SWAP from "./swap.py";

/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./protocol.js").Phase} Phase */
/** @typedef {import("./protocol.js").ToWorker} ToWorker */

const post = toPage;
const now = () => performance.timeOrigin + performance.now(); // ms since the epoch: the page's clock too
// The page marks each phase on its own timeline (kvpage:worker-PHASE), which bench/run.py reads.
/** @param {Phase} name */
const phase = (name) => post({ type: "progress", phase: name, at: now() });
let restored = null; // resolves to {pyodide, handle, path}: path, the wheel kvpage is imported from
const lent = new Map(); // name -> {promise, resolve}: each binary the page lends (message "asset")
const arrival = (name) => {
  if (!lent.has(name)) {
    let resolve;
    const promise = new Promise((done) => (resolve = done));
    lent.set(name, { promise, resolve });
  }
  return lent.get(name);
};
let swaps = 0;

// SWAP, Python's side of a swap (swap.py): kvpage_swap(path, old), kvpage imported afresh from the
// wheel at `path` in place of `old`, or the old model kept if the new one does not import.

// kvpage imported afresh from the wheel bytes `bytes`, written beside the snapshot's (or over it,
// `path` equal to `current.path`); `current` ({pyodide, handle, path}) then answers with it.
function swapModel(current, bytes, path) {
  if (path !== current.path) {
    current.pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    current.pyodide.FS.writeFile(path, bytes);
  }
  const swap = current.pyodide.runPython(SWAP);
  try {
    const handle = swap(path, current.path);
    current.handle?.destroy();
    current.handle = handle;
    current.path = path;
  } finally {
    swap.destroy();
  }
}

// Python's side of a reader's Run (reader.py, its text `code` in message "model", from the editor's
// script; static/kvpage/reader.js is the page's side). A worker runs one: the page makes a fresh one
// for each Run (stage "python"), and tells the reader's model to each it makes later. `sources`
// ({path: text}, JSON) are the files of kvpage the reader changed; none is the book's own model, and
// none at all ("Back to the book's model") leaves the snapshot's model as it is. Each is compiled
// first (a syntax error is answered with its path, line and column before any of it runs); then
// kvpage's modules are imported afresh, the reader's files from their text by a finder ahead of the
// wheel, the others from the wheel, and every lab of the page is computed at its current values
// (`labs`, JSON: [{request, texts, parts}]). If the import or any lab fails (any exception, an exit
// or an interrupt too), or a view lacks an output the lab shows, the answer says why: the model's own
// frames only, named as the disclosure names its files, never the bridge's, the wheel's path or
// Pyodide's. Nothing is put back: the page drops a worker whose Run failed. Its value is the
// function; its answer is JSON text, {"ok": true, "replies": [reply text, ...]} or {"ok": false,
// "error", "frames"?, "path"?, "line"?, "col"?, "text"?}.
let reader = null;
function runReader(current, code, sources, labs) {
  reader ??= current.pyodide.runPython(code);
  const answer = reader(JSON.stringify(sources), JSON.stringify(labs));
  const bridge = current.pyodide.pyimport("kvpage.bridge");
  current.handle?.destroy();
  current.handle = bridge.handle.copy();
  bridge.destroy();
  return answer;
}

// Whether Pyodide still runs Python: after an exit (os._exit) or a fatal error (the wasm stack
// overflowed) every call fails, and the page replaces the worker.
function alive(pyodide) {
  try {
    pyodide.runPython("None");
    return true;
  } catch {
    return false;
  }
}

// What an error thrown by Pyodide says, in one line: a Python error's message is its whole
// traceback (the bridge's and Pyodide's frames, the wheel's path), of which the last line names it.
function lastLine(error) {
  const lines = String(error?.message ?? error).trim().split("\n");
  return lines[lines.length - 1] || "it stopped";
}

// The zstd decoder (sitegen/runtime/packing.py): the wasm the build put in the decoder's script as base64
// (globalThis.kvpageZstd, before this function in an unpacker's code), instantiated on first use.
let zstd = null;
function zstdDecoder() {
  if (zstd !== null) return zstd;
  const text = globalThis.kvpageZstd;
  const bytes = typeof Uint8Array.fromBase64 === "function"
    ? Uint8Array.fromBase64(text)
    : Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  // Its memory grows as it needs (it reads its buffer anew after every call).
  const imports = { env: { emscripten_notify_memory_growth: () => {} } };
  const source = /** @type {Uint8Array<ArrayBuffer>} */ (bytes);
  zstd = WebAssembly.instantiate(source, imports).then(({ instance }) => /** @type {any} */ (instance.exports));
  return zstd;
}

// The zstd frame `packed` decoded into a new buffer of `size` bytes; fails with `failure()` unless
// it is one frame of exactly that size whose checksum (XXH64 of the content, which the decoder
// verifies) matches.
async function unzstd(packed, size, failure) {
  const z = await zstdDecoder().catch(() => {
    throw failure();
  });
  const from = z.malloc(packed.byteLength);
  const to = z.malloc(size);
  try {
    if (from === 0 || to === 0) throw failure();
    new Uint8Array(z.memory.buffer, from, packed.byteLength).set(new Uint8Array(packed));
    const made = z.ZSTD_decompress(to, size, from, packed.byteLength);
    if (z.ZSTD_isError(made) || made >>> 0 !== size) throw failure();
    return new Uint8Array(z.memory.buffer, to, size).slice();
  } finally {
    z.free(from);
    z.free(to);
  }
}

// What an unpacker decoded and keeps for Cache Storage: name -> Uint8Array (handler "unpack").
const keeping = {};

// The unpacked binaries `files` ({name: bytes}) kept in Cache Storage where `where` says ({cache,
// keys: {name: URL}, site, current}: only the names of `keys`), and every entry under `site` that is
// not `current` (an older build of this site) deleted. A cache that cannot be opened or is full
// keeps nothing, and the page fetches as before on the next visit.
async function keepUnpacked(where, files) {
  const cache = await globalThis.caches.open(where.cache);
  const current = new Set(where.current);
  for (const request of await cache.keys()) {
    if (request.url.startsWith(where.site) && !current.has(request.url)) await cache.delete(request);
  }
  const headers = { "content-type": "application/octet-stream" };
  for (const [name, url] of Object.entries(where.keys)) await cache.put(url, new Response(files[name], { headers }));
}

// The binary `name` as the page lent it (an ArrayBuffer, unpacked), as bytes; fails naming its
// file unless it is the size the build recorded.
function received(runtime, name, bytes) {
  if (!(bytes instanceof ArrayBuffer) || bytes.byteLength !== runtime.unpacked[name]) {
    throw new Error(`could not load ${runtime.index_url}${runtime.packed[name]}`);
  }
  return new Uint8Array(bytes);
}

// The wasm compiled, and handed to the page for later workers unless it came from the page.
function compileWasm(wasm, module) {
  if (module) return Promise.resolve(module);
  const compiled = WebAssembly.compile(wasm);
  compiled.then((made) => {
    try {
      post({ type: "compiled", module: made });
    } catch {
      // An engine that cannot send a module: each later worker compiles its own.
    }
  }, () => {});
  return compiled;
}

// The steps that need what the page lends, each binary as it comes ({bytes, module}, from
// arrival(): Pyodide sets itself up meanwhile, and the wasm compiles while the snapshot still
// comes): {compiled, snapshot, image, wheel, everything}. The lent bytes go back to the page as soon
// as every step has read them.
function readAssets(runtime) {
  const bytesOf = (name) => arrival(name).promise.then(({ bytes }) => bytes);
  const read = (name) => bytesOf(name).then((bytes) => received(runtime, name, bytes));
  const wasm = read(runtime.wasm);
  const encoded = read(runtime.snapshot);
  // Pyodide writes the wheel in fsInit, which may come after the lent bytes went back: its own copy.
  const wheel = read(runtime.wheel).then((bytes) => bytes.slice());
  // (compile reads the bytes as it is called)
  const module = arrival(runtime.wasm).promise.then((asset) => asset.module);
  const compiled = Promise.all([wasm, module]).then(([code, given]) => compileWasm(code, given));
  // Pyodide needs the snapshot's size before it instantiates, its bytes only after: it gets this
  // buffer now and the bytes are written into it while Pyodide sets itself up.
  const snapshot = new Uint8Array(runtime.snapshot_size);
  const image = Promise.all([encoded, wasm]).then(([bytes, code]) => snapshotImage(snapshot, bytes, code));
  const names = [runtime.wasm, runtime.snapshot, runtime.wheel];
  Promise.all([...names.map(bytesOf), compiled.catch(() => {}), image.catch(() => {}), wheel]).then((all) => {
    const assets = Object.fromEntries(names.map((name, index) => [name, all[index]]));
    toPage({ type: "returned", assets }, Object.values(assets));
  }, () => {});
  compiled.then(() => phase("compiled"), () => {});
  const everything = Promise.all([compiled, image, wheel]).then(() => phase("decoded"));
  everything.catch(() => {}); // its failure is reported by the race with Pyodide
  return { compiled, snapshot, image, wheel, everything };
}

// Pyodide started on the snapshot, its steps those of readAssets; resolves to the Pyodide.
async function startPyodide(runtime, indexURL, steps) {
  const { compiled, snapshot, image, wheel, everything } = steps;
  const stdlibURL = new URL(runtime.stdlib, indexURL).href;
  const unhook = interceptPyodide(new URL(runtime.wasm, indexURL).href, stdlibURL, compiled);
  try {
    const started = globalThis.loadPyodide({
      indexURL,
      // Pyodide restores the snapshot as soon as this resolves: not before its bytes are in.
      createPyodideModule: async (settings) => {
        const made = await globalThis._createPyodideModule(settings);
        phase("instantiated");
        await image;
        return made;
      },
      lockFileContents: runtime.lock,
      packageBaseUrl: indexURL,
      stdLibURL: stdlibURL,
      env: { ...runtime.env },
      // The snapshot imports kvpage from its wheel, with zipimport, at this path.
      fsInit: async (FS) => {
        FS.mkdirTree(runtime.wheel_path.slice(0, runtime.wheel_path.lastIndexOf("/")));
        FS.writeFile(runtime.wheel_path, await wheel);
      },
      _loadSnapshot: snapshot,
      stdout: () => {},
    });
    // Pyodide waits forever on a wasm that fails to compile: fail with our reason instead.
    const pyodide = await Promise.race([started, everything.then(() => started)]);
    phase("restored");
    if (pyodide.version !== runtime.pyodide) {
      throw new Error(`Pyodide ${pyodide.version} started, but the snapshot is for ${runtime.pyodide}`);
    }
    // Pyodide keeps its options, so the 31 MB image would stay alive: it is in wasm memory now.
    snapshot.buffer.transfer?.(0);
    return pyodide;
  } finally {
    unhook();
  }
}

async function restore(runtime, page) {
  if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
  const indexURL = new URL(runtime.index_url, page).href;
  const pyodide = await startPyodide(runtime, indexURL, readAssets(runtime));
  // Python's loop checks for signals in JavaScript every so often once it has a buffer to read
  // (never written: no SharedArrayBuffer here). That call is where JavaScriptCore can stop a
  // terminated worker: without it a stopped runaway call's thread went on looping in WebKitGTK,
  // a core busy for good even on about:blank (measured from /proc: 5.2 CPU-s in every 5 s, and
  // 0.0 with the buffer; the commit that added this says how).
  pyodide.setInterruptBuffer(new Uint8Array(1));
  const current = { pyodide, handle: null, path: runtime.wheel_path };
  if (runtime.fresh_model) {
    // `serve` after a model edit: the snapshot holds the model before it; the wheel is the new one.
    swapModel(current, null, runtime.wheel_path);
  } else {
    const bridge = pyodide.pyimport("kvpage.bridge");
    current.handle = bridge.handle.copy(); // an owned proxy, for the worker's whole life
    bridge.destroy();
  }
  return current;
}

/**
 * One handler for each message the page sends (protocol.js), given that message.
 * @type {{[Type in ToWorker["type"]]: (message: Extract<ToWorker, {type: Type}>) => void}}
 */
const handlers = {
  start({ runtime, page }) {
    phase("started");
    restored = restore(runtime, page);
    restored.then(
      ({ pyodide }) => post({ type: "ready", version: pyodide.version }),
      (error) => post({ type: "failed", error: error?.message ?? String(error) }),
    );
  },
  asset({ name, bytes, module }) {
    arrival(name).resolve({ bytes, module });
  },
  async call({ id, request }) {
    const { pyodide, handle } = await restored;
    try {
      post({ type: "reply", id, reply: handle(request) });
    } catch (error) {
      // The bridge returns every failure as a value; this is Pyodide itself failing, or Python
      // stopped by the reader's model (an exit, an interrupt): its last line, never its frames.
      const reply = JSON.stringify({ ok: false, error: `Python failed: ${lastLine(error)}` });
      post({ type: "reply", id, reply, dead: !alive(pyodide) });
    }
  },
  async model({ id, code, sources, labs }) {
    const current = await restored;
    try {
      post({ type: "reply", id, reply: runReader(current, code, sources, labs) });
    } catch (error) {
      const reply = JSON.stringify({ ok: false, error: `your model stopped Python: ${lastLine(error)}` });
      post({ type: "reply", id, reply, dead: !alive(current.pyodide) });
    }
  },
  async swap({ id, runtime, wheel }) {
    try {
      const current = await restored;
      const name = runtime.wheel;
      const bytes = received(runtime, name, wheel);
      swaps += 1;
      const folder = runtime.wheel_path.slice(0, runtime.wheel_path.lastIndexOf("/"));
      swapModel(current, bytes, `${folder}/swap-${swaps}/${name}`);
      post({ type: "swapped", id });
    } catch (error) {
      post({ type: "swapped", id, error: error?.message ?? String(error) });
    }
  },
  // An unpacker's job: a zstd binary decoded off the page, and a copy kept for Cache Storage if
  // `keep` (the page lends the one it gets to Python's workers). (Not compiled here: Python's worker
  // compiles the wasm on V8's background threads while it writes the snapshot's image, which is
  // sooner than after the decode here.)
  async unpack({ name, bytes, size, keep }) {
    try {
      const unpacked = await unzstd(bytes, size, () => new Error(`could not unpack ${name}`));
      if (keep) keeping[name] = unpacked.slice();
      toPage({ type: "unpacked", name, bytes: unpacked.buffer, at: now() }, [unpacked.buffer]);
    } catch (error) {
      post({ type: "failed", name, error: error?.message ?? String(error) });
    }
  },
  // ... and, once the page's first worker is ready, what it decoded and `files` ({name: bytes}, the
  // page's own) kept where `where` says (stage "assets", keptWhere).
  async keep({ where, files }) {
    try {
      await keepUnpacked(where, { ...keeping, ...files });
      post({ type: "kept" });
    } catch (error) {
      post({ type: "kept", error: error?.message ?? String(error) });
    }
  },
};

globalThis.addEventListener("message", (event) => {
  const message = fromPage(event);
  const handler = /** @type {((message: ToWorker) => void) | undefined} */ (handlers[message?.type]);
  handler?.(message);
});
