// Stock Pyodide's loader, in a module worker as its documentation shows: bench/run.py bundles the
// page's script with this module in place of stage "spawn" (site_template/static/kvpage/spawn.js),
// whose exports it has. The page's own pool, labs and drawing are kept; only how a worker is made
// changes. The worker, stock_worker.mjs, imports pyodide.mjs, which imports pyodide.asm.mjs and
// fetches the wasm, the standard library and the lock file from indexURL, and installs kvpage's
// wheel by name.
import { say } from "./progress.js";

/** A new worker, starting stock Pyodide; its first message is "ready" or "failed". @returns {Promise<Worker>} */
export function pythonWorker() {
  say("Loading Python…");
  return Promise.resolve(new Worker(new URL("static/stock_worker.mjs", document.baseURI), { type: "module" }));
}

/** `serve`'s model swap: not in the stock page. @returns {Promise<ArrayBuffer>} */
export function replaceWheel() {
  return Promise.reject(new Error("the stock loader swaps no model"));
}
