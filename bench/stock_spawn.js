// Stock Pyodide's loader, in a module worker as its documentation shows: bench/run.py bundles the
// page's script with this module in place of stage "spawn" (site_template/static/kvpage/spawn.js),
// whose exports it has. The page's own pool, labs and drawing are kept; only how a worker is made
// changes. The worker, stock_worker.mjs, imports pyodide.mjs, which imports pyodide.asm.mjs and
// fetches the wasm, the standard library and the lock file from indexURL, and installs kvpage's
// wheel by name.
import { say } from "./progress.js";

/**
 * A new worker, starting stock Pyodide: `listener` hears every message it says ("ready" or "failed"
 * first), and that it broke, as the page's loader's does.
 * @param {unknown} config @param {{heard(message: unknown): void, broke(why: string): void}} listener
 * @returns {Promise<Worker>}
 */
export function pythonWorker(config, listener) {
  say("Loading Python…");
  const worker = new Worker(new URL("static/stock_worker.mjs", document.baseURI), { type: "module" });
  worker.addEventListener("message", (event) => listener.heard(event.data));
  worker.addEventListener("error", (event) => {
    event.preventDefault();
    listener.broke(event.message || "Python's worker stopped");
  });
  return Promise.resolve(worker);
}

/** `serve`'s model swap: not in the stock page. @returns {Promise<ArrayBuffer>} */
export function replaceWheel() {
  return Promise.reject(new Error("the stock loader swaps no model"));
}
