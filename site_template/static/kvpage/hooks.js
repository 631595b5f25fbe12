// Stage "hooks" (in Python's worker): Pyodide's own requests, answered from memory.
//
// Pyodide fetches the wasm and the stdlib zip from its indexURL and compiles the wasm with
// WebAssembly.instantiateStreaming. While it starts, the wasm's request gets an empty response
// that instantiateStreaming recognises and answers with the module stage "worker" compiled
// already; the stdlib's gets an empty file, which zipimport reads as "no zip" and does not cache
// (every module the labs use is in the snapshot's memory: the site has no stdlib zip, see
// sitegen/runtime/snapshot.py). Any other request goes to the network as usual. Relies on private
// Pyodide behaviour, checked for the pinned files only (sitegen/runtime/pyodide-pins.json).

// Installs the hooks; returns the function that removes them again.
export function interceptPyodide(wasmURL, stdlibURL, compiled) {
  const realFetch = globalThis.fetch;
  const realInstantiateStreaming = WebAssembly.instantiateStreaming;
  const answered = new WeakSet();
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url === wasmURL) {
      const response = Promise.resolve(new Response(new Uint8Array(0)));
      answered.add(response);
      return response;
    }
    if (url === stdlibURL) return Promise.resolve(new Response(new Uint8Array(0)));
    return realFetch.call(globalThis, input, init);
  };
  WebAssembly.instantiateStreaming = (source, imports) =>
    answered.has(source)
      ? compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module })))
      : realInstantiateStreaming.call(WebAssembly, source, imports);
  return () => {
    globalThis.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiateStreaming;
  };
}
