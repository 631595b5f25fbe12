// bench/run.py's stock page: Python's worker made with Pyodide as its documentation shows, answering
// the page's worker protocol (site_template/static/kvpage/protocol.js): "ready" or "failed" once it
// has started, then one "reply" per "call". Only the page's own loader (stock_spawn.js) makes it.
import { loadPyodide } from "../pyodide/pyodide.mjs";

let handle = null;
addEventListener("message", ({ data }) => {
  if (data?.type === "call") postMessage({ type: "reply", id: data.id, reply: handle(data.request) });
});
try {
  const pyodide = await loadPyodide({ indexURL: new URL("../pyodide/", import.meta.url).href });
  await pyodide.loadPackage("kvpage");
  handle = pyodide.pyimport("kvpage.bridge").handle;
  postMessage({ type: "ready", version: pyodide.version });
} catch (error) {
  postMessage({ type: "failed", error: error?.message ?? String(error) });
}
