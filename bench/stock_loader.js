// ---- loader: stock Pyodide in a module worker, as its documentation shows (spliced in by bench/run.py) ----
// The page's own pool, labs and drawing are kept; only how a worker is made changes. The worker,
// stock_worker.mjs, imports pyodide.mjs, which imports pyodide.asm.mjs and fetches the wasm, the
// standard library and the lock file from indexURL, and installs kvpage's wheel by name.
function pythonWorker() {
  say("Loading Python…");
  return Promise.resolve(new Worker(new URL("static/stock_worker.mjs", document.baseURI), { type: "module" }));
}
// ---- end of loader ----
