// Stage "worker", Python's side: restores Python from the snapshot the page lends it (the wasm, the
// snapshot, the wheel, stage "image"; Pyodide's requests answered by stage "hooks") and answers calls
// as strings. Relies on private Pyodide API, for the pinned files only (sitegen/runtime/pyodide-pins.json).
// Its messages: ToPython in, FromPython out (protocol.js, decision 0060).

import { snapshotImage } from "./image.js";
import { interceptPyodide } from "./hooks.js";
import { fromPage, toPage } from "./protocol.js";
import { awaitedElsewhere } from "./settled.js";
import SWAP from "./swap.py";

/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./protocol.js").Phase} Phase */
/** @typedef {import("./protocol.js").ToPython} ToPython */
/** @typedef {import("./protocol.js").FromPython} FromPython */
/** @typedef {{bytes: ArrayBuffer, module: WebAssembly.Module | null}} Lent a binary the page lent, and the wasm compiled if it has it */
/** @typedef {{pyodide: Pyodide, handle: PyProxy | null, path: string}} Current Python, its bridge.handle, and the wheel kvpage is imported from */

/** @param {FromPython} message @param {Transferable[]} [transfer] */
const post = (message, transfer = []) => toPage(message, transfer);
/** @param {unknown} error */
const why = (error) => (error instanceof Error ? error.message : String(error));
const now = () => performance.timeOrigin + performance.now(); // ms since the epoch: the page's clock too
// The page marks each phase on its own timeline (kvpage:worker-PHASE), which bench/run.py reads.
/** @param {Phase} name */
const phase = (name) => post({ type: "progress", phase: name, at: now() });
/** @type {Promise<Current>} Python restored (message "start" makes it) */
let restored = new Promise(() => undefined);
/** @type {Map<string, {promise: Promise<Lent>, resolve: (lent: Lent) => void}>} each binary the page lends (message "asset") */
const lent = new Map();
/** @param {string} name */
const arrival = (name) => {
  let known = lent.get(name);
  if (known === undefined) {
    /** @type {(lent: Lent) => void} */
    let resolve = () => undefined;
    const promise = new Promise((/** @type {(lent: Lent) => void} */ done) => (resolve = done));
    known = { promise, resolve };
    lent.set(name, known);
  }
  return known;
};
let swaps = 0;

// SWAP, Python's side of a swap (swap.py): kvpage_swap(path, old), kvpage imported afresh from the
// wheel at `path` in place of `old`, or the old model kept if the new one does not import.

// kvpage imported afresh from the wheel bytes `bytes`, written beside the snapshot's (or over it,
// `path` equal to `current.path`); `current` ({pyodide, handle, path}) then answers with it.
/** @param {Current} current @param {Uint8Array | null} bytes @param {string} path */
function swapModel(current, bytes, path) {
  if (path !== current.path && bytes !== null) {
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
/** @type {PyProxy | null} */
let reader = null;
/** @param {Current} current @param {string} code @param {Record<string, string>} sources @param {import("./protocol.js").ReaderLab[]} labs */
function runReader(current, code, sources, labs) {
  reader ??= /** @type {PyProxy} */ (current.pyodide.runPython(code));
  const answer = reader(JSON.stringify(sources), JSON.stringify(labs));
  const bridge = current.pyodide.pyimport("kvpage.bridge");
  current.handle?.destroy();
  current.handle = bridge.handle.copy();
  bridge.destroy();
  return /** @type {string} */ (answer);
}

// Whether Pyodide still runs Python: after an exit (os._exit) or a fatal error (the wasm stack
// overflowed) every call fails, and the page replaces the worker.
/** @param {Pyodide} pyodide */
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
/** @param {unknown} error */
function lastLine(error) {
  const lines = why(error).trim().split("\n");
  return lines[lines.length - 1] || "it stopped";
}

// The binary `name` as the page lent it (an ArrayBuffer, unpacked), as bytes; fails naming its
// file unless it is the size the build recorded.
/** @param {Runtime} runtime @param {string} name @param {unknown} bytes */
function received(runtime, name, bytes) {
  if (!(bytes instanceof ArrayBuffer) || bytes.byteLength !== runtime.unpacked[name]) {
    throw new Error(`could not load ${runtime.index_url}${runtime.packed[name]}`);
  }
  return new Uint8Array(bytes);
}

// The wasm compiled, and handed to the page for later workers unless it came from the page.
/** @param {Uint8Array<ArrayBuffer>} wasm @param {WebAssembly.Module | null} module */
function compileWasm(wasm, module) {
  if (module) return Promise.resolve(module);
  const compiled = WebAssembly.compile(wasm);
  compiled.then((made) => {
    try {
      post({ type: "compiled", module: made });
    } catch (error) {
      console.info("kvpage: this engine cannot send a compiled module; each worker compiles its own:", error);
    }
  }, awaitedElsewhere); // a failure to compile is restore()'s to report
  return compiled;
}

// The steps that need what the page lends, each binary as it comes ({bytes, module}, from
// arrival(): Pyodide sets itself up meanwhile, and the wasm compiles while the snapshot still
// comes): {compiled, snapshot, image, wheel, everything}. The lent bytes go back to the page as soon
// as every step has read them.
/** @param {Runtime} runtime */
function readAssets(runtime) {
  /** @param {string} name */
  const bytesOf = (name) => arrival(name).promise.then(({ bytes }) => bytes);
  /** @param {string} name */
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
  Promise.all([...names.map(bytesOf), compiled.catch(awaitedElsewhere), image.catch(awaitedElsewhere), wheel]).then((all) => {
    const assets = Object.fromEntries(names.map((name, index) => [name, /** @type {ArrayBuffer} */ (all[index])]));
    post({ type: "returned", assets }, Object.values(assets));
  }, awaitedElsewhere); // bytes that never came, or a wheel not read: restore() reports it
  compiled.then(() => phase("compiled"), awaitedElsewhere);
  const everything = Promise.all([compiled, image, wheel]).then(() => phase("decoded"));
  everything.catch(awaitedElsewhere); // its failure is reported by the race with Pyodide
  return { compiled, snapshot, image, wheel, everything };
}

// Pyodide started on the snapshot, its steps those of readAssets; resolves to the Pyodide.
/** @param {Runtime} runtime @param {string} indexURL @param {ReturnType<typeof readAssets>} steps @returns {Promise<Pyodide>} */
async function startPyodide(runtime, indexURL, steps) {
  const { compiled, snapshot, image, wheel, everything } = steps;
  const stdlibURL = new URL(runtime.stdlib, indexURL).href;
  const unhook = interceptPyodide(new URL(runtime.wasm, indexURL).href, stdlibURL, compiled);
  try {
    if (globalThis.loadPyodide === undefined) throw new Error("Pyodide is not in this worker");
    const started = globalThis.loadPyodide({
      indexURL,
      // Pyodide restores the snapshot as soon as this resolves: not before its bytes are in.
      createPyodideModule: async (/** @type {unknown} */ settings) => {
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
      fsInit: async (/** @type {Pyodide["FS"]} */ FS) => {
        FS.mkdirTree(runtime.wheel_path.slice(0, runtime.wheel_path.lastIndexOf("/")));
        FS.writeFile(runtime.wheel_path, await wheel);
      },
      _loadSnapshot: snapshot,
      stdout: () => undefined, // what Python prints is not the page's
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

/** @param {Runtime} runtime @param {string} page @returns {Promise<Current>} */
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
  /** @type {Current} */
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
 * @type {{[Type in ToPython["type"]]: (message: Extract<ToPython, {type: Type}>) => void}}
 */
const handlers = {
  start({ runtime, page }) {
    phase("started");
    restored = restore(runtime, page);
    restored.then(
      ({ pyodide }) => post({ type: "ready", version: pyodide.version }),
      (error) => post({ type: "failed", error: why(error) }),
    );
  },
  asset({ name, bytes, module }) {
    arrival(name).resolve({ bytes, module });
  },
  async call({ id, request }) {
    const { pyodide, handle } = await restored;
    try {
      if (handle === null) throw new Error("kvpage did not import");
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
      post({ type: "swapped", id, error: why(error) });
    }
  },
};

/** Python's worker answers the page: each message to its handler. */
export function listenAsPython() {
  globalThis.addEventListener("message", (event) => {
    const message = /** @type {ToPython} */ (fromPage(event));
    const handler = /** @type {(message: ToPython) => void} */ (handlers[message.type]);
    handler(message);
  });
}
