// Stage "worker": Python's Web Worker itself. Runs in the worker, never on the page: the page
// makes each worker from a Blob of Pyodide's JavaScript followed by this function's own text
// (kvpageWorker, stage "spawn"), so it may use nothing from the page's stages but itself.
//
// Python is not started here, it is restored: the build ran Pyodide once with kvpage imported and
// shipped its memory (sitegen/python_snapshot.py), as a patch over the wasm's data segments
// (stage "image"). The page hands over the packed (gzipped) bytes as Blobs, the same ones to every
// worker it makes; each is un-gzipped here as it streams, the wasm compiled as soon as it is in,
// and Pyodide's own requests are answered from memory (stage "hooks").
//
// The messages, one object each ({type, ...}), all the page and this worker say to each other:
//   page → worker  start {runtime, page, assets}            restore Python: runtime is the page config's
//                                                           "python" (sitegen.runtime.Loader), page the
//                                                           page's URL, assets {name: ArrayBuffer} the
//                                                           packed bytes, transferred (lent); module, if
//                                                           the page has it, the wasm compiled already
//                  call {id, request}                       request: the JSON text kvpage.bridge.handle takes
//                  swap {id, runtime, wheel}                `serve` after a model edit: wheel, the packed
//                                                           bytes of runtime's (the new config's) wheel,
//                                                           replaces kvpage in the running Python
//   worker → page  returned {assets}                        the lent bytes, transferred back once un-gzipped
//                  compiled {module}                        the compiled wasm, which later workers start from
//                  progress {phase: "decoded"}              every binary is in and decoded
//                  ready {version}                          Python answers calls from now on
//                  failed {error}                           it could not start: why, as a sentence
//                  reply {id, reply}                        reply: the JSON text handle returned
//                  swapped {id, error}                      the new model answers from now on (error:
//                                                           why not; the old one still answers)
// Each handler below is one message type. The page sends calls only once the worker is ready, one at a time: a worker that
// does not answer in time is terminated, not asked to stop (no SharedArrayBuffer in a static site).
// Python is called with a string and answers a string: no Python object crosses to the page.
//
// This relies on private Pyodide API (_loadSnapshot, the instantiateStreaming call, the snapshot
// layout): the build refuses any Pyodide but the one it was written for (PYODIDE_VERSION in
// sitegen/python_snapshot.py), and the worker checks the version it started.

const post = (message) => globalThis.postMessage(message);
let restored = null; // resolves to {pyodide, handle, path}: path, the wheel kvpage is imported from
let swaps = 0;

// Python's side of a swap: kvpage's modules dropped and imported again from the wheel at `path`, in
// place of the one at `old` on sys.path (the same path when the page starts on a snapshot older than
// its wheel); zipimport forgets what it read of both. If the new model does not import, the old
// modules and path are put back and the error raised: the old model keeps answering.
const SWAP = `
def kvpage_swap(path, old):
    import importlib, sys, zipimport
    def forget():
        for known in {path, old}:
            sys.path_importer_cache.pop(known, None)
            getattr(zipimport, "_zip_directory_cache", {}).pop(known, None)
    ours = lambda name: name == "kvpage" or name.startswith("kvpage.")
    kept = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in kept:
        del sys.modules[name]
    at = sys.path.index(old)
    sys.path[at] = path
    forget()
    importlib.invalidate_caches()
    try:
        bridge = importlib.import_module("kvpage.bridge")
    except BaseException:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(kept)
        sys.path[at] = old
        forget()
        raise
    return bridge.handle
kvpage_swap
`;

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

// The gzip bytes `packed` (an ArrayBuffer) un-gzipped into one buffer of the size the build
// recorded; fails naming `file` if they are cut short, damaged, not gzip or not the file this page
// was built with.
async function unpack(packed, size, file) {
  const failure = () => new Error(`could not load ${file}`);
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
      throw failure();
    });
    if (done) break;
    if (at + value.length > bytes.length) throw failure();
    bytes.set(value, at);
    at += value.length;
  }
  if (at !== bytes.length) throw failure();
  return bytes;
}

async function restore(runtime, page, assets, module) {
  if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
  const file = (name) => unpack(assets[name], runtime.unpacked[name], `${runtime.index_url}${runtime.packed[name]}`);
  const indexURL = new URL(runtime.index_url, page).href;
  // (Compiling while un-gzipping, with compileStreaming, measured slower: see docs/performance.md.)
  const wasm = file(runtime.wasm);
  // The first worker compiles the wasm and hands the page the module; later ones start from it.
  const compiled = module ? Promise.resolve(module) : wasm.then((code) => WebAssembly.compile(code));
  if (!module) {
    compiled.then((made) => {
      try {
        post({ type: "compiled", module: made });
      } catch {
        // An engine that cannot send a module: each later worker compiles its own.
      }
    }, () => {});
  }
  // Pyodide needs the snapshot's size before it instantiates, its bytes only after: it gets this
  // buffer now and the bytes are written into it while Pyodide sets itself up.
  const snapshot = new Uint8Array(runtime.snapshot_size);
  const image = Promise.all([file(runtime.snapshot), wasm]).then(([encoded, code]) => snapshotImage(snapshot, encoded, code));
  const wheel = file(runtime.wheel);
  // The page lends the packed bytes for its next worker: back as soon as they are read, or failed.
  const read = [wasm, image, wheel].map((step) => step.catch(() => {}));
  Promise.all(read).then(() => globalThis.postMessage({ type: "returned", assets }, Object.values(assets)));
  const everything = Promise.all([compiled, image, wheel]).then(() => post({ type: "progress", phase: "decoded" }));
  everything.catch(() => {}); // its failure is reported below, by the race with Pyodide

  const stdlibURL = new URL(runtime.stdlib, indexURL).href;
  const unhook = interceptPyodide(new URL(runtime.wasm, indexURL).href, stdlibURL, compiled);
  try {
    const started = globalThis.loadPyodide({
      indexURL,
      // Pyodide restores the snapshot as soon as this resolves: not before its bytes are in.
      createPyodideModule: async (settings) => {
        const module = await globalThis._createPyodideModule(settings);
        await image;
        return module;
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
    if (pyodide.version !== runtime.pyodide) {
      throw new Error(`Pyodide ${pyodide.version} started, but the snapshot is for ${runtime.pyodide}`);
    }
    // Pyodide keeps its options, so the 31 MB image would stay alive: it is in wasm memory now.
    snapshot.buffer.transfer?.(0);
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
  } finally {
    unhook();
  }
}

const handlers = {
  start({ runtime, page, assets, module }) {
    restored = restore(runtime, page, assets, module);
    restored.then(
      ({ pyodide }) => post({ type: "ready", version: pyodide.version }),
      (error) => post({ type: "failed", error: error?.message ?? String(error) }),
    );
  },
  async call({ id, request }) {
    const { handle } = await restored;
    let reply;
    try {
      reply = handle(request);
    } catch (error) {
      // The bridge returns every failure as a value; this is Pyodide itself failing.
      reply = JSON.stringify({ ok: false, error: `Python failed: ${error?.message ?? error}` });
    }
    post({ type: "reply", id, reply });
  },
  async swap({ id, runtime, wheel }) {
    try {
      const current = await restored;
      const name = runtime.wheel;
      const bytes = await unpack(wheel, runtime.unpacked[name], `${runtime.index_url}${runtime.packed[name]}`);
      swaps += 1;
      const folder = runtime.wheel_path.slice(0, runtime.wheel_path.lastIndexOf("/"));
      swapModel(current, bytes, `${folder}/swap-${swaps}/${name}`);
      post({ type: "swapped", id });
    } catch (error) {
      post({ type: "swapped", id, error: error?.message ?? String(error) });
    }
  },
};

globalThis.addEventListener("message", (event) => handlers[event.data?.type]?.(event.data));
