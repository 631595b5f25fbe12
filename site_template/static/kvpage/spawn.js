// Stage "spawn": Python's workers. Each is made from one Blob: Pyodide's JavaScript and the zstd
// decoder's wasm (the asset "code", un-gzipped once) followed by the text of kvpageWorker (the
// worker stages, joined into this script by sitegen/page_script.py). A page opened from disk, or
// the single file, has no URL a worker could be loaded from; a Blob's works from every origin, under the page's own
// Content-Security-Policy (worker-src blob:). The page itself never runs Pyodide.
//
// A classic worker, not a module: a module worker's script is fetched in CORS mode, which a page
// opened from disk (origin "null") is never granted, not even for its own Blob. Pyodide refuses to
// start in a classic worker, which it detects by whether importScripts works, because it would
// load its other scripts with import(); here it loads none (they are all in the Blob, and
// createPyodideModule is handed to it), and the worker hides importScripts before Pyodide looks.
const WORKER_PROLOGUE = `"use strict";
// Pyodide is in this script already: nothing is imported (see stage "spawn" of static/kvpage.js).
globalThis.importScripts = undefined;
`;

let opened = null; // the assets, opened for the first worker and shared by every later one
let workerURL = null; // the Blob URL of the worker's code, made once
let compiledWasm = null; // the WebAssembly.Module the first worker compiled: later workers skip compiling
// The wasm, snapshot and wheel ({name: {bytes, unpacked}}, stage "assets") are lent to one worker
// at a time: transferred to it (not copied), and transferred back once it has read them
// ("returned"), in about a tenth of a second; a worker made meanwhile waits for them. (A worker
// that fails before it gives them back keeps them: then the page can make no other, and says so.)
let held = null; // Promise of {name: {bytes, unpacked}}, when they are home
let keepAsked = false; // a worker was asked to keep what it unpacks (stage "worker"): only the first is

// `serve` after a model edit: workers made from now on get `wheel` (packed) for python.wheel.
function replaceWheel(python, wheel) {
  if (held === null) return;
  held = held.then((assets) => ({ ...assets, [python.wheel]: { bytes: wheel.slice(0), unpacked: false } }));
  held.catch(() => {});
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

// The Blob URL of the worker's code: Pyodide's JavaScript (the asset "code", un-gzipped here),
// then kvpageWorker.
async function workerCode(python) {
  const code = (await opened.asset(python.code)).bytes;
  if (workerURL !== null) return workerURL;
  const unpacked = new Blob([code]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(unpacked).blob().catch(() => null);
  if (text === null || text.size !== python.unpacked[python.code]) {
    throw new Error(`could not load ${python.index_url}${python.packed[python.code]}`);
  }
  const source = new Blob([WORKER_PROLOGUE, text, `\n(${kvpageWorker})();\n`], { type: "text/javascript" });
  workerURL ??= URL.createObjectURL(source);
  return workerURL;
}

// Lends `assets` to `worker`, told to start: they come home when it says "returned".
function lend(worker, python, assets) {
  let home, kept;
  held = new Promise((resolve, reject) => ((home = resolve), (kept = reject)));
  held.catch(() => {}); // the next worker reports it
  const keptBy = (why) => kept(new Error(`Python's files went with a worker that failed (${why}); reload the page`));
  worker.addEventListener("message", (event) => {
    const type = event.data?.type;
    if (type === "returned") home(event.data.assets);
    else if (type === "compiled") compiledWasm ??= event.data.module;
    else if (type === "failed") keptBy(event.data.error);
    else if (type === "kept") document.documentElement.dataset.pythonCache = "kept";
  });
  worker.addEventListener("error", (event) => keptBy(event.message || "it stopped"));
  if (Object.values(assets).every((asset) => asset.unpacked)) document.documentElement.dataset.pythonCache = "hit";
  const fresh = Object.keys(assets).filter((name) => !assets[name].unpacked);
  const keep = !keepAsked && opened.cacheable && fresh.length > 0 ? opened.keepIn(fresh) : null;
  keepAsked ||= keep !== null;
  const start = { type: "start", runtime: python, page: document.baseURI, assets, module: compiledWasm, keep };
  worker.postMessage(start, Object.values(assets).map((asset) => asset.bytes));
}

function pythonWorker(config) {
  return (async () => {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    if (typeof Worker !== "function") throw new Error("this browser has no Web Workers");
    const python = config.python;
    if (opened === null) openWithProgress(config);
    const names = [python.wasm, python.snapshot, python.wheel];
    held ??= Promise.all(names.map(opened.asset)).then((assets) =>
      Object.fromEntries(names.map((name, index) => [name, assets[index]])),
    );
    // The worker is made as soon as its code is in: it reads Pyodide's JavaScript while the wasm and
    // the snapshot still arrive, and is told to start once they have.
    const worker = new Worker(await workerCode(python));
    let assets;
    try {
      assets = await held;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    lend(worker, python, assets);
    return worker;
  })();
}

// ---- end of loader ----
