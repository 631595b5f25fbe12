// Stage "worker": Python's Web Worker itself. Runs in the worker, never on the page: the page
// makes each worker from a Blob of Pyodide's JavaScript followed by this function's own text
// (kvpageWorker, stage "spawn"), so it may use nothing from the page's stages but itself.
//
// Python is not started here, it is restored: the build ran Pyodide once with kvpage imported and
// shipped its memory (sitegen/python_snapshot.py), as a patch over the wasm's data segments
// (stage "image"). The page lends the packed bytes (the wasm and the snapshot zstd, the others
// gzip: sitegen/packing.py), the same ones to every worker it makes; each is unpacked here (zstd by
// the decoder the build put after Pyodide's JavaScript, gzip by DecompressionStream), the wasm
// compiled as soon as it is in, and Pyodide's own requests are answered from memory (stage
// "hooks"). On a second visit over http the page may lend them unpacked already, read back from
// Cache Storage, where the first worker of the first visit kept them (keepUnpacked).
//
// The messages, one object each ({type, ...}), all the page and this worker say to each other:
//   page → worker  start {runtime, page, assets, module, keep}
//                                                           restore Python: runtime is the page config's
//                                                           "python" (sitegen.runtime.Loader), page the
//                                                           page's URL, assets {name: {bytes, unpacked}}
//                                                           each binary's bytes (an ArrayBuffer, packed or
//                                                           unpacked already), transferred (lent); module,
//                                                           if the page has it, the wasm compiled already;
//                                                           keep: null, or where to keep what it unpacks
//                                                           in Cache Storage ({cache, keys: {name: URL}},
//                                                           stage "assets")
//                  call {id, request}                       request: the JSON text kvpage.bridge.handle takes
//                  swap {id, runtime, wheel}                `serve` after a model edit: wheel, the packed
//                                                           bytes of runtime's (the new config's) wheel,
//                                                           replaces kvpage in the running Python
//   worker → page  returned {assets}                        the lent bytes, transferred back once read
//                  compiled {module}                        the compiled wasm, which later workers start from
//                  progress {phase: "decoded"}              every binary is in and decoded
//                  ready {version}                          Python answers calls from now on
//                  failed {error}                           it could not start: why, as a sentence
//                  reply {id, reply}                        reply: the JSON text handle returned
//                  swapped {id, error}                      the new model answers from now on (error:
//                                                           why not; the old one still answers)
//                  kept {}                                  the unpacked binaries are in Cache Storage
// Each handler below is one message type. The page sends calls only once the worker is ready, one at a time: a worker that
// does not answer in time is terminated, not asked to stop (no SharedArrayBuffer in a static site).
// Python is called with a string and answers a string: no Python object crosses to the page.
//
// This relies on private Pyodide API (_loadSnapshot, the instantiateStreaming call, the snapshot
// layout): the build refuses any Pyodide but the files it was written for (their sha256 in
// sitegen/pyodide-pins.json), and the worker checks the version it started.

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

// The gzip bytes `packed` (an ArrayBuffer) un-gzipped into one buffer of `size` bytes, the size
// the build recorded; fails with `failure()` if they are cut short, damaged (gzip's CRC), not gzip
// or not the file this page was built with.
async function gunzip(packed, size, failure) {
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

// The zstd decoder (sitegen/packing.py): the wasm the build put after Pyodide's JavaScript as
// base64 (globalThis.kvpageZstd), instantiated on first use; dropped once Python is restored.
let zstd = null;
function zstdDecoder() {
  if (zstd !== null) return zstd;
  const text = globalThis.kvpageZstd;
  const bytes = typeof Uint8Array.fromBase64 === "function"
    ? Uint8Array.fromBase64(text)
    : Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  // Its memory grows as it needs (it reads its buffer anew after every call).
  const imports = { env: { emscripten_notify_memory_growth: () => {} } };
  zstd = WebAssembly.instantiate(bytes, imports).then(({ instance }) => instance.exports);
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

// The asset `name` as the page lent it ({bytes, unpacked}), unpacked as the build packed it
// (runtime.encoding); fails naming its file.
function unpack(runtime, name, asset) {
  const failure = () => new Error(`could not load ${runtime.index_url}${runtime.packed[name]}`);
  const size = runtime.unpacked[name];
  if (asset.unpacked) {
    return asset.bytes.byteLength === size ? Promise.resolve(new Uint8Array(asset.bytes)) : Promise.reject(failure());
  }
  return runtime.encoding[name] === "zstd" ? unzstd(asset.bytes, size, failure) : gunzip(asset.bytes, size, failure);
}

// The unpacked binaries `files` ({name: Uint8Array}) kept in Cache Storage for the page's next visit,
// where `keep` says ({cache, keys: {name: URL}}: the page's stage "assets" names them, and reads
// them back), and every entry of an older build of this site deleted. Best effort: a cache that
// cannot be opened or is full keeps nothing, and the page fetches as before.
async function keepUnpacked(keep, indexURL, files) {
  const cache = await globalThis.caches.open(keep.cache);
  const current = new Set(Object.values(keep.keys));
  for (const request of await cache.keys()) {
    if (request.url.startsWith(indexURL) && !current.has(request.url)) await cache.delete(request);
  }
  for (const [name, bytes] of Object.entries(files)) {
    const headers = { "content-type": "application/octet-stream", "content-length": String(bytes.byteLength) };
    await cache.put(keep.keys[name], new Response(bytes, { headers }));
  }
  post({ type: "kept" });
}

// The wasm compiled, and handed to the page for later workers unless it came from the page.
function compileWasm(wasm, module) {
  if (module) return Promise.resolve(module);
  const compiled = wasm.then((code) => WebAssembly.compile(code));
  compiled.then((made) => {
    try {
      post({ type: "compiled", module: made });
    } catch {
      // An engine that cannot send a module: each later worker compiles its own.
    }
  }, () => {});
  return compiled;
}

// Unpacks what the page lent, and starts the steps that need it: {compiled, snapshot, image, wheel,
// everything, unpacked}; `unpacked` resolves to the bytes unpacked here ({name: Uint8Array}, for
// keepUnpacked). The lent bytes go back to the page as soon as every step has read them.
function readAssets(runtime, assets, module) {
  const file = (name) => unpack(runtime, name, assets[name]);
  // (Compiling while un-gzipping, with compileStreaming, measured slower: see docs/performance.md.)
  const wasm = file(runtime.wasm);
  const compiled = compileWasm(wasm, module);
  // Pyodide needs the snapshot's size before it instantiates, its bytes only after: it gets this
  // buffer now and the bytes are written into it while Pyodide sets itself up.
  const snapshot = new Uint8Array(runtime.snapshot_size);
  const encoded = file(runtime.snapshot);
  const image = Promise.all([encoded, wasm]).then(([bytes, code]) => snapshotImage(snapshot, bytes, code));
  // Pyodide writes the wheel in fsInit, which may come after the lent bytes went back: its own copy.
  const wheel = file(runtime.wheel).then((bytes) => bytes.slice());
  const read = [wasm.then(() => compiled), image, wheel].map((step) => step.catch(() => {}));
  const lent = Object.values(assets).map((asset) => asset.bytes);
  Promise.all(read).then(() => globalThis.postMessage({ type: "returned", assets }, lent));
  const everything = Promise.all([compiled, image, wheel]).then(() => post({ type: "progress", phase: "decoded" }));
  everything.catch(() => {}); // its failure is reported by the race with Pyodide
  const names = [runtime.wasm, runtime.snapshot, runtime.wheel].filter((name) => !assets[name].unpacked);
  const unpacked = Promise.all([wasm, encoded, wheel]).then(([wasmBytes, snapshotBytes, wheelBytes]) => {
    const all = { [runtime.wasm]: wasmBytes, [runtime.snapshot]: snapshotBytes, [runtime.wheel]: wheelBytes };
    return Object.fromEntries(names.map((name) => [name, all[name]]));
  });
  unpacked.catch(() => {});
  return { compiled, snapshot, image, wheel, everything, unpacked };
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

async function restore(runtime, page, assets, module, keep) {
  if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
  const indexURL = new URL(runtime.index_url, page).href;
  const steps = readAssets(runtime, assets, module);
  const pyodide = await startPyodide(runtime, indexURL, steps);
  zstd = null; // nothing else is zstd (a swap's wheel is gzip): its memory may go
  if (keep) {
    // Once Python is up, so that a first visit's start never waits on it.
    steps.unpacked.then((files) => Object.keys(files).length > 0 && keepUnpacked(keep, indexURL, files)).catch(() => {});
  }
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

const handlers = {
  start({ runtime, page, assets, module, keep }) {
    restored = restore(runtime, page, assets, module, keep);
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
      const bytes = await unpack(runtime, name, { bytes: wheel, unpacked: false });
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
