// ---- loader: start Python (bench/run.py swaps from here to "end of loader" for stock Pyodide's) ----
//
// Stage "assets": the bytes of each binary the page needs (the wasm, the snapshot, the wheel, the
// stdlib zip), however the page was opened:
//   "fetch"   over http(s): each binary fetched as itself, streamed into one buffer;
//   "scripts" from a folder (file://, where fetch of sibling files is refused): each binary as a
//             classic script that hands its bytes, base64-encoded, to `kvpageAssets`;
//   "inline"  the single-file book: those scripts are inline in the page and have run already.
// The build writes the names and sizes into the page's "kvpage-runtime" JSON (sitegen/runtime.py).
const config = JSON.parse(document.getElementById("kvpage-runtime").textContent);
const runtime = config.runtime;
// Filled by the runtime's asset scripts: name -> {type, base64}.
const assets = (globalThis.kvpageAssets ??= new Map());

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

// The bytes an asset script handed over, taken once (the base64 text is garbage after that).
function takeAsset(name) {
  const entry = assets.get(name);
  if (entry === undefined) throw new Error(`the page has no ${config.indexURL}${name}`);
  assets.delete(name);
  return decodeBase64(entry.base64);
}

function assetMode() {
  if (config.scripts.length === 0) return "inline";
  return location.protocol === "file:" ? "scripts" : "fetch";
}

// Starts loading what the page needs before Python can start. `stopped` (an AbortSignal) ends
// the downloads' progress reports; `onLoaded(bytes)` is told of every byte that arrives.
// Returns {total, code, scripts, bytes(name), later(name)}: `total` bytes to load; `code` resolves
// once pyodide.js and pyodide.asm.js have run (they define loadPyodide); `scripts` once every
// script loaded here has run; `bytes(name)` resolves to a binary's bytes as soon as it is here;
// `later(name)` loads a binary nobody waits for (the stdlib zip), off the critical path.
function openAssets(stopped, onLoaded) {
  const mode = assetMode();
  const fetching = mode === "fetch";
  const indexURL = new URL(config.indexURL, document.baseURI).href;
  const stdlibScript = `${config.indexURL}${runtime.stdlib}.js`;
  const scripts = mode === "inline" ? [] : fetching ? runtime.code : config.scripts.filter((src) => src !== stdlibScript);
  const binaries = [runtime.wasm, runtime.snapshot, runtime.wheel];
  const paths = [...scripts, ...(fetching ? binaries.map((name) => config.indexURL + name) : [])];
  const total = paths.reduce((sum, path) => sum + runtime.sizes[path], 0);
  const realFetch = globalThis.fetch; // the page's own, whatever stage "hooks" does later
  const failure = (name) => new Error(`could not load ${config.indexURL}${name}`);

  async function open(name) {
    const response = await realFetch.call(globalThis, new URL(name, indexURL), { signal: stopped }).catch(() => {
      throw failure(name);
    });
    if (!response.ok) throw failure(name);
    return response;
  }
  // Into one buffer of the size the build recorded: no list of chunks to join and collect.
  async function read(name, body) {
    const bytes = new Uint8Array(runtime.sizes[config.indexURL + name]);
    let at = 0;
    for (const reader = body.getReader(); ; ) {
      const { done, value } = await reader.read().catch(() => {
        throw failure(name);
      });
      if (done) break;
      if (at + value.length > bytes.length) throw failure(name); // not the file this page was built with
      bytes.set(value, at);
      at += value.length;
      onLoaded(value.length);
    }
    if (at !== bytes.length) throw failure(name);
    return bytes;
  }
  const loading = new Map(scripts.map((src) => [src, loadScript(src).then(() => onLoaded(runtime.sizes[src]))]));

  return {
    total,
    code: Promise.all(runtime.code.map((src) => loading.get(src)).filter(Boolean)),
    scripts: Promise.all(loading.values()),
    bytes: (name) =>
      fetching
        ? open(name).then((response) => read(name, response.body))
        : (loading.get(`${config.indexURL}${name}.js`) ?? Promise.resolve()).then(() => takeAsset(name)),
    later: (name) =>
      fetching
        ? realFetch.call(globalThis, new URL(name, indexURL)).then((response) =>
            response.ok ? response.arrayBuffer().then((buffer) => new Uint8Array(buffer)) : Promise.reject(failure(name)),
          )
        : (mode === "inline" ? Promise.resolve() : loadScript(`${config.indexURL}${name}.js`)).then(() => takeAsset(name)),
  };
}
