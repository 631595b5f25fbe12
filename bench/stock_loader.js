// ---- loader: stock Pyodide, as its documentation shows (spliced in by bench/run.py) ----
// pyodide.js is a classic script in <head>; it imports pyodide.asm.mjs, fetches the wasm, the
// standard library and the lock file from indexURL, and installs kvpage's wheel by name.
async function startPython() {
  say("Loading Python…");
  if (typeof globalThis.loadPyodide !== "function") throw new Error("pyodide.js did not load");
  const pyodide = await globalThis.loadPyodide({ indexURL: new URL("pyodide/", document.baseURI).href });
  await pyodide.loadPackage("kvpage");
  return pyodide;
}
// ---- end of loader ----
