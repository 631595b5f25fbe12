// Stage "hooks" (in Python's worker): Pyodide's own requests answered from memory: the wasm's with the
// module compiled already (through instantiateStreaming), the stdlib zip's with an empty file (the
// snapshot holds the standard library, decision 0010). Private Pyodide behaviour, checked for the pinned
// files only (sitegen/runtime/pyodide-pins.json, decision 0034).

// Installs the hooks; returns the function that removes them again.
/** @param {string} wasmURL @param {string} stdlibURL @param {Promise<WebAssembly.Module>} compiled */
export function interceptPyodide(wasmURL, stdlibURL, compiled) {
  const realFetch = globalThis.fetch;
  const realInstantiateStreaming = WebAssembly.instantiateStreaming;
  /** @type {WeakSet<Promise<Response>>} */
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
    source instanceof Promise && answered.has(source)
      ? compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module })))
      : realInstantiateStreaming.call(WebAssembly, source, imports);
  return () => {
    globalThis.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiateStreaming;
  };
}
