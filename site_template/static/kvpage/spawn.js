// Stage "spawn": Python's workers. Each is made from one Blob: Pyodide's JavaScript (the asset
// "code", un-gzipped once) followed by the text of kvpageWorker (the worker stages, joined into
// this script by sitegen/page_script.py). A page opened from disk, or the single file, has no URL
// a worker could be loaded from; a Blob's works from every origin, under the page's own
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
// The packed wasm, snapshot and wheel are lent to one worker at a time: transferred to it (not
// copied), and transferred back once it has un-gzipped them ("returned"), in about a tenth of a
// second; a worker made meanwhile waits for them. (A worker that fails before it gives them back
// keeps them: then the page can make no other, and says so.)
let held = null; // Promise of {name: ArrayBuffer}, when they are home

// `serve` after a model edit: workers made from now on get `wheel` (packed) for python.wheel.
function replaceWheel(python, wheel) {
  if (held === null) return;
  held = held.then((assets) => ({ ...assets, [python.wheel]: wheel.slice(0) }));
  held.catch(() => {});
}

function pythonWorker(config) {
  return (async () => {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    if (typeof Worker !== "function") throw new Error("this browser has no Web Workers");
    const python = config.python;
    const first = opened === null;
    if (first) {
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
      Promise.all([python.code, python.wasm, python.snapshot, python.wheel].map(opened.packed)).then(() => {
        report(true);
        say("Starting Python…");
        progress("starting", loaded, opened.total);
      }, () => {});
    }
    const names = [python.wasm, python.snapshot, python.wheel];
    held ??= Promise.all(names.map(opened.packed)).then((buffers) =>
      Object.fromEntries(names.map((name, index) => [name, buffers[index]])),
    );
    const code = await opened.packed(python.code);
    if (workerURL === null) {
      const unpacked = new Blob([code]).stream().pipeThrough(new DecompressionStream("gzip"));
      const text = await new Response(unpacked).blob().catch(() => null);
      if (text === null || text.size !== python.unpacked[python.code]) {
        throw new Error(`could not load ${python.index_url}${python.packed[python.code]}`);
      }
      const source = new Blob([WORKER_PROLOGUE, text, `\n(${kvpageWorker})();\n`], { type: "text/javascript" });
      workerURL ??= URL.createObjectURL(source);
    }
    // The worker is made as soon as its code is in: it reads Pyodide's JavaScript while the wasm and
    // the snapshot still arrive, and is told to start once they have.
    const worker = new Worker(workerURL);
    let packed;
    try {
      packed = await held;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    let home, kept;
    held = new Promise((resolve, reject) => ((home = resolve), (kept = reject)));
    held.catch(() => {}); // the next worker reports it
    const keptBy = (why) => kept(new Error(`Python's files went with a worker that failed (${why}); reload the page`));
    worker.addEventListener("message", (event) => {
      if (event.data?.type === "returned") home(event.data.assets);
      else if (event.data?.type === "compiled") compiledWasm ??= event.data.module;
      else if (event.data?.type === "failed") keptBy(event.data.error);
    });
    worker.addEventListener("error", (event) => keptBy(event.message || "it stopped"));
    const start = { type: "start", runtime: python, page: document.baseURI, assets: packed, module: compiledWasm };
    worker.postMessage(start, Object.values(packed));
    return worker;
  })();
}

// ---- end of loader ----
