// ---- loader: start Python (bench/run.py swaps from here to "end of loader" for stock Pyodide's) ----
//
// The loader's whole interface with the stages after it, which bench/run.py's stock loader has too:
//   pythonWorker(config) → Promise<Worker>   a new worker, told to start Python; its first message
//                                            is "ready" or "failed" (stage "worker")
//   pythonLive(config, workers)              once the labs are live; workers() lists the live ones
//
// Stage "assets": the packed (gzipped) bytes of each binary Python's worker needs (Pyodide's
// JavaScript, the wasm, the snapshot, the wheel; the stdlib zip later), however the page was
// opened, each as an ArrayBuffer, held by the page for every worker it makes and never un-gzipped
// here (the worker un-gzips them, stage "spawn" lends them). The build gzips each
// (sitegen/runtime.py: the same transfer on every host, and a smaller zip and single file). They
// arrive
//   "fetch"   over http(s): each fetched as NAME.bin, counted for the progress bar as it streams in;
//   "scripts" from a folder (file://, where fetch of sibling files is refused): each as a classic
//             script, NAME.bin.js, that hands its gzip bytes, base64-encoded, to `kvpageAssets`
//             (also the fallback over http when a NAME.bin is missing: an unzipped zip, which
//             leaves them out);
//   "inline"  the single-file book: those scripts are inline in the page, after this one, so each
//             binary arrives while the browser still reads the rest of the file; arrived() waits.
// The build writes the names and sizes into the page's config (sitegen.runtime.Loader).

// Filled by the runtime's asset scripts: name -> {type, base64}.
const assets = (globalThis.kvpageAssets ??= new Map());
const waiting = new Map(); // name -> resolve, for assets whose script has not run yet
assets.set = function (name, entry) {
  Map.prototype.set.call(this, name, entry);
  waiting.get(name)?.();
  return this;
};

// Resolves once the asset script for `name` has run (in the single file, it may come later than
// this script); fails if the page is parsed and it never came.
function arrived(python, name) {
  return new Promise((resolve, reject) => {
    if (assets.has(name)) return resolve();
    waiting.set(name, resolve);
    const missing = () => (assets.has(name) ? resolve() : reject(new Error(`the page has no ${python.packed[name]}`)));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", missing, { once: true });
    else missing();
  });
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(script);
  });
}

function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// The gzip bytes an asset script handed over, taken once (the base64 text is garbage after that).
function takeAsset(python, name) {
  const entry = assets.get(name);
  if (entry === undefined) throw new Error(`the page has no ${python.index_url}${python.packed[name]}`);
  assets.delete(name);
  return decodeBase64(entry.base64).buffer;
}

// Starts loading what a worker needs. `onLoaded(bytes)` is told of every byte that arrives over
// http. Returns {total, packed(name), later(name)}: `total` bytes to load before Python can start;
// `packed(name)` resolves to a binary's gzip bytes (an ArrayBuffer); `later(name)` loads a binary
// nobody waits for (the stdlib zip), off the critical path.
function openAssets(config, onLoaded) {
  if (typeof DecompressionStream !== "function") throw new Error("this browser cannot decompress gzip");
  const python = config.python;
  const mode = config.inline ? "inline" : location.protocol === "file:" ? "scripts" : "fetch";
  const indexURL = new URL(python.index_url, document.baseURI).href;
  const script = (name) => `${python.index_url}${python.packed[name]}.js`;
  const needed = [python.code, python.wasm, python.snapshot, python.wheel];
  const paths = needed.map((name) => (mode === "fetch" ? `${python.index_url}${python.packed[name]}` : script(name)));
  const total = mode === "inline" ? 0 : paths.reduce((sum, path) => sum + python.sizes[path], 0);
  const failure = (name) => new Error(`could not load ${python.index_url}${python.packed[name]}`);

  // Over http: the response, counted for progress as it streams in.
  async function download(name, counted) {
    const response = await fetch(new URL(python.packed[name], indexURL));
    if (!response.ok) throw failure(name);
    const counter = new TransformStream({
      transform(chunk, controller) {
        if (counted) onLoaded(chunk.length);
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter)).arrayBuffer().catch(() => {
      throw failure(name);
    });
  }
  const fromScript = (name, loaded) => loaded.then(() => takeAsset(python, name));
  const scripted = (name, counted) => {
    const loaded = loadScript(script(name)).then(() => counted && onLoaded(python.sizes[script(name)]));
    return fromScript(name, loaded);
  };
  const load = (name, counted) => {
    if (mode === "inline") return fromScript(name, arrived(python, name));
    if (mode === "scripts") return scripted(name, counted);
    return download(name, counted).catch(() => fromScript(name, loadScript(script(name))));
  };
  const loading = new Map(needed.map((name) => [name, load(name, true)]));
  for (const promise of loading.values()) promise.catch(() => {}); // each is awaited by whoever needs it
  return {
    total,
    packed: (name) => loading.get(name) ?? Promise.reject(new Error(`no asset ${name}`)),
    later: (name) => load(name, false),
  };
}
