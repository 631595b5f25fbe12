// ---- loader: start Python (bench/run.py swaps from here to "end of loader" for stock Pyodide's) ----
//
// Stage "assets": the bytes of each binary the page needs (the wasm, the snapshot, the wheel),
// however the page was opened. The build gzips each (sitegen/runtime.py: the same
// transfer on every host, and a smaller zip and single file); here they are un-gzipped with the
// browser's own DecompressionStream. They arrive
//   "fetch"   over http(s): each fetched as NAME.bin and un-gzipped as it streams in;
//   "scripts" from a folder (file://, where fetch of sibling files is refused): each as a classic
//             script, NAME.bin.js, that hands its gzip bytes, base64-encoded, to `kvpageAssets`
//             (also the fallback over http when a NAME.bin is missing: an unzipped zip, which
//             leaves them out);
//   "inline"  the single-file book: those scripts are inline in the page, after this one, so that
//             each binary is decoded (and the wasm compiled) while the browser still reads the
//             rest of the file; arrived() waits for each.
// The build writes the names and sizes into the page's "kvpage-runtime" JSON (sitegen/runtime.py).
const config = JSON.parse(document.getElementById("kvpage-runtime").textContent);
const runtime = config.runtime;
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
function arrived(name) {
  return new Promise((resolve, reject) => {
    if (assets.has(name)) return resolve();
    waiting.set(name, resolve);
    const missing = () => (assets.has(name) ? resolve() : reject(new Error(`the page has no ${runtime.packed[name]}`)));
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
function takeAsset(name) {
  const entry = assets.get(name);
  if (entry === undefined) throw new Error(`the page has no ${config.indexURL}${runtime.packed[name]}`);
  assets.delete(name);
  return decodeBase64(entry.base64);
}

function assetMode() {
  if (config.scripts.length === 0) return "inline";
  return location.protocol === "file:" ? "scripts" : "fetch";
}

// Starts loading what the page needs before Python can start. `stopped` (an AbortSignal) ends
// the downloads' progress reports; `onLoaded(bytes)` is told of every byte that arrives.
// Returns {total, code, scripts, bytes(name)}: `total` bytes to load (as far as known yet); `code`
// resolves once pyodide.js and pyodide.asm.js have run (they define loadPyodide); `scripts` once
// every script loaded here has run; `bytes(name)` resolves to a binary's bytes, un-gzipped, as
// soon as it is here.
function openAssets(stopped, onLoaded) {
  if (typeof DecompressionStream !== "function") throw new Error("this browser cannot decompress gzip");
  const mode = assetMode();
  const fetching = mode === "fetch";
  const indexURL = new URL(config.indexURL, document.baseURI).href;
  const script = (name) => `${config.indexURL}${runtime.packed[name]}.js`;
  const scripts = mode === "inline" ? [] : fetching ? runtime.code : config.scripts;
  const binaries = [runtime.wasm, runtime.snapshot, runtime.wheel];
  const paths = [...scripts, ...(fetching ? binaries.map((name) => config.indexURL + runtime.packed[name]) : [])];
  // Bytes to load: over http, what a host that gzips text sends ("sent"), until the browser says
  // what it received for each script (so a host that does not compress is counted right too).
  const estimate = (path) => (fetching ? runtime.sent[path] : undefined) ?? runtime.sizes[path];
  let total = paths.reduce((sum, path) => sum + estimate(path), 0);
  const received = (src) =>
    performance.getEntriesByName(new URL(src, document.baseURI).href)[0]?.encodedBodySize || estimate(src);
  const realFetch = globalThis.fetch; // the page's own, whatever stage "hooks" does later
  const failure = (name) => new Error(`could not load ${config.indexURL}${runtime.packed[name]}`);

  // The gzip stream `packed` un-gzipped into one buffer of the size the build recorded.
  async function unpack(name, packed) {
    const bytes = new Uint8Array(runtime.unpacked[name]);
    let at = 0;
    for (const reader = packed.pipeThrough(new DecompressionStream("gzip")).getReader(); ; ) {
      const { done, value } = await reader.read().catch(() => {
        throw failure(name); // cut short, damaged, or not gzip
      });
      if (done) break;
      if (at + value.length > bytes.length) throw failure(name); // not the file this page was built with
      bytes.set(value, at);
      at += value.length;
    }
    if (at !== bytes.length) throw failure(name);
    return bytes;
  }
  // Over http: the response, counted for progress as it streams into the decompressor.
  async function download(name, signal) {
    const response = await realFetch.call(globalThis, new URL(runtime.packed[name], indexURL), { signal });
    if (!response.ok) throw failure(name);
    const counted = new TransformStream({
      transform(chunk, controller) {
        onLoaded(chunk.length);
        controller.enqueue(chunk);
      },
    });
    return unpack(name, response.body.pipeThrough(counted));
  }
  const loaded = (src) => {
    const bytes = received(src);
    total += bytes - estimate(src);
    onLoaded(bytes);
  };
  const loading = new Map(scripts.map((src) => [src, loadScript(src).then(() => loaded(src))]));
  const fromScript = (name, loaded) => loaded.then(() => unpack(name, new Blob([takeAsset(name)]).stream()));
  const fetched = (name, signal) =>
    download(name, signal).catch((error) => {
      if (signal?.aborted) throw error; // Python is up or failed already: nothing waits for it
      return fromScript(name, loadScript(script(name)));
    });

  return {
    get total() {
      return total;
    },
    code: Promise.all(runtime.code.map((src) => loading.get(src)).filter(Boolean)),
    scripts: Promise.all(loading.values()),
    bytes: (name) =>
      fetching
        ? fetched(name, stopped)
        : fromScript(name, loading.get(script(name)) ?? arrived(name)),
  };
}
