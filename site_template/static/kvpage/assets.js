// Stage "assets": the packed bytes of each binary Python's worker needs, however the page was opened
// ("fetch" over http, "scripts" from a folder, "inline" in the single file), and the Cache Storage that
// keeps them unpacked for a second visit (decisions 0004, 0023, 0025). With stage "spawn" this is the
// loader bench/stock_spawn.js replaces.

import { awaitedElsewhere } from "./settled.js";

/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./protocol.js").KeptWhere} KeptWhere */
/** @typedef {ReturnType<typeof openAssets>} Opened the binaries, opened (openAssets) */
/** @typedef {{bytes: ArrayBuffer, unpacked: boolean}} Asset a binary's bytes, packed or unpacked already */

// Filled by the runtime's asset scripts: name -> {type, base64}.
const assets = (globalThis.kvpageAssets ??= new Map());
/** @type {Map<string, () => void>} */
const waiting = new Map(); // name -> resolve, for assets whose script has not run yet
/** @param {string} name @param {{type: string, base64: string}} entry */
assets.set = function (name, entry) {
  Map.prototype.set.call(this, name, entry);
  waiting.get(name)?.();
  return this;
};

// Resolves once the asset script for `name` has run (in the single file, it may come later than
// this script); fails if the page is parsed and it never came.
/** @param {Runtime} python @param {string} name @returns {Promise<void>} */
function arrived(python, name) {
  return new Promise((resolve, reject) => {
    if (assets.has(name)) return resolve();
    waiting.set(name, resolve);
    const missing = () => (assets.has(name) ? resolve() : reject(new Error(`the page has no ${python.packed[name]}`)));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", missing, { once: true });
    else missing();
  });
}

// Resolves once the page's first contentful paint is on screen: Python's bytes are requested only
// then (at low priority), so they never hold up the chapter's text, CSS or images, and the first
// paint never waits on them (a browser shares its connections and its bandwidth between what it
// requests at once). The paint entry, not the first animation frame: a frame's callbacks run
// before it is drawn, and on a busy machine the frame reached the screen a second later, after
// the requests (Lighthouse then counted all 7 MB towards the largest paint). A browser without
// paint timing falls back to the frame (`framePainted`); a hidden page draws no frames until it is
// shown: it starts at once.
// A page that scrolls before its first paint (opened at a heading's anchor or a lab link, which
// labs.js scrolls to) starts once a frame after that scroll has been painted, the paint entry or
// not: Firefox (153 ESR) reports no paint entry for it at all, and it waited for the 5 s timer,
// so a shared link went live 5 s late. Chromium reports one, a little after that frame; the page
// opened at its top (as Lighthouse opens it) still waits for the entry. The timer stays as a last
// resort only: a page whose paint is never reported and that draws no frame after a scroll (hidden
// before its first paint) must still get its labs (decision 0023, addendum of 2026-12-07).
/** @type {Promise<void>} */
const firstPaint = new Promise((resolve) => {
  if (document.visibilityState === "hidden" || typeof requestAnimationFrame !== "function") return resolve();
  if (!(globalThis.PerformanceObserver?.supportedEntryTypes ?? []).includes("paint")) return framePainted(resolve);
  const painted = () => performance.getEntriesByName("first-contentful-paint").length > 0;
  if (painted()) return resolve();
  const observer = new PerformanceObserver(() => painted() && (observer.disconnect(), resolve()));
  observer.observe({ type: "paint" });
  const scrolled = () => framePainted(resolve);
  if (scrollX !== 0 || scrollY !== 0) scrolled();
  else addEventListener("scroll", scrolled, { once: true, passive: true });
  setTimeout(resolve, 5000); // the last resort: no paint reported and no frame after a scroll
});

// Calls `then` once the next frame has been painted: in the frame after it, whose callbacks run
// only once the one before has been drawn on the main thread. Frames, not a timer, so that nothing
// the page waits for before starting Python is a timer (tests/browsers/test_firefox.py stops the
// page's timers to show it).
/** @param {() => void} then */
function framePainted(then) {
  requestAnimationFrame(() => requestAnimationFrame(() => then()));
}

/** @param {string} src @returns {Promise<void>} */
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.fetchPriority = "low";
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(script);
  });
}

/** @param {string} text */
function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// The packed bytes an asset script handed over, taken once (the base64 text is garbage after that).
/** @param {Runtime} python @param {string} name @returns {ArrayBuffer} */
function takeAsset(python, name) {
  const entry = assets.get(name);
  if (entry === undefined) throw new Error(`the page has no ${python.index_url}${python.packed[name]}`);
  assets.delete(name);
  return /** @type {ArrayBuffer} */ (decodeBase64(entry.base64).buffer);
}

// Second visits over http(s): each binary is kept unpacked (Pyodide's JavaScript, the wasm,
// the snapshot, the wheel) in Cache Storage, keyed by its content-addressed URL, once the first
// visit's Python is up, and reads them back from there instead of fetching and unpacking them
// again, without waiting for the first paint (docs/decisions/0025). Cache
// Storage is for secure origins only (not file://), and may throw or be full (private windows,
// quota): any failure is a miss, and the binary is fetched as on a first visit.
const UNPACKED_CACHE = "kvpage-unpacked";
/** @param {string} indexURL @param {string} file */
const unpackedKey = (indexURL, file) => `${new URL(file, indexURL).href}?unpacked`;

// The unpacked bytes of `name` kept by an earlier visit, or null.
/** @param {Runtime} python @param {string} indexURL @param {string} name @returns {Promise<ArrayBuffer | null>} */
async function cachedUnpacked(python, indexURL, name) {
  try {
    const cache = await globalThis.caches.open(UNPACKED_CACHE);
    const response = await cache.match(unpackedKey(indexURL, python.packed[name]));
    const bytes = response ? await response.arrayBuffer() : null;
    return bytes?.byteLength === python.unpacked[name] ? bytes : null;
  } catch (error) {
    console.info("kvpage: Cache Storage could not be read, so Python's files are fetched:", error);
    return null;
  }
}

// Where the binaries `names` are kept for the next visit: {cache, keys: {name: URL}, site, current}:
// the unpacker keeps them there (stage "worker", keepUnpacked) once the first worker is ready, and
// deletes every entry under `site` (this site's runtime folder) that is not `current` (this build's).
/** @param {Runtime} python @param {string} indexURL @param {string[]} names @returns {KeptWhere} */
function keptWhere(python, indexURL, names) {
  const key = (/** @type {string} */ name) => unpackedKey(indexURL, python.packed[name]);
  return {
    cache: UNPACKED_CACHE,
    keys: Object.fromEntries(names.map((name) => [name, key(name)])),
    site: indexURL,
    current: Object.keys(python.packed).map(key),
  };
}

// Over http: the response to `url`, counted for progress (`onLoaded`) as it streams in; `got`
// counts it for a fallback. Fails with `failure()`.
/**
 * @param {URL} url @param {() => Error} failure @param {(bytes: number) => void} onLoaded @param {{bytes: number}} got
 * @returns {Promise<ArrayBuffer>}
 */
async function downloaded(url, failure, onLoaded, got) {
  const response = await fetch(url, { priority: "low" });
  if (!response.ok || response.body === null) throw failure();
  const counter = new TransformStream({
    /** @param {Uint8Array} chunk @param {TransformStreamDefaultController<Uint8Array>} controller */
    transform(chunk, controller) {
      got.bytes += chunk.length;
      onLoaded(chunk.length);
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter)).arrayBuffer().catch((error) => {
    console.warn(`kvpage: ${url} was cut short:`, error);
    throw failure();
  });
}

// What the browser received for the script `src` (as Resource Timing reports it), else its size.
/** @param {Runtime} python @param {string} src @returns {number} */
function received(python, src) {
  const entry = performance.getEntriesByName(new URL(src, document.baseURI).href)[0];
  return /** @type {PerformanceResourceTiming | undefined} */ (entry)?.encodedBodySize || python.sizes[src];
}

// Starts loading what a worker needs. `onLoaded(bytes)` is told of every byte that arrives.
// Returns {total, cacheable, keptWhere(names), comesPacked(name), asset(name)}: `total` bytes to
// load before Python can start, as far as known yet; `cacheable`, whether Cache Storage is there
// (over http(s)); `keptWhere(names)`, where to keep those binaries there; `comesPacked(name)`
// resolves, before the bytes arrive, to whether they will be packed; `asset(name)` resolves to {bytes,
// unpacked}: a binary's bytes (an ArrayBuffer), packed as the build made it, or unpacked already
// (read back from Cache Storage).
/** @param {PageConfig} config @param {(bytes: number) => void} onLoaded */
export function openAssets(config, onLoaded) {
  const python = config.python;
  const mode = config.inline ? "inline" : location.protocol === "file:" ? "scripts" : "fetch";
  const cacheable = mode === "fetch" && typeof globalThis.caches === "object";
  const indexURL = new URL(python.index_url, document.baseURI).href;
  const binary = (/** @type {string} */ name) => `${python.index_url}${python.packed[name]}`;
  const script = (/** @type {string} */ name) => `${binary(name)}.js`;
  const needed = [python.code, python.wasm, python.snapshot, python.wheel];
  // Bytes to load: over http what the host sends for each NAME.bin ("sent"), from a folder each
  // script's size; corrected by what the browser reports receiving when a binary comes another way.
  const estimate = (/** @type {string} */ path) => (mode === "fetch" ? python.sent[path] : undefined) ?? python.sizes[path];
  const expected = (/** @type {string} */ name) => estimate(mode === "fetch" ? binary(name) : script(name));
  let total = mode === "inline" ? 0 : needed.reduce((sum, name) => sum + expected(name), 0);
  const failure = (/** @type {string} */ name) => new Error(`could not load ${binary(name)}`);
  const download = (/** @type {string} */ name, /** @type {{bytes: number}} */ got) => downloaded(new URL(python.packed[name], indexURL), () => failure(name), onLoaded, got);
  const fromScript = (/** @type {string} */ name, /** @type {Promise<void>} */ loaded) => loaded.then(() => takeAsset(python, name));
  // A binary's script, counted once it has run: what the browser received for it, instead of what
  // was expected for the binary (`counted` bytes of which arrived already, from a download that failed).
  const scripted = (/** @type {string} */ name, counted = 0) => {
    const loaded = loadScript(script(name)).then(() => {
      const bytes = received(python, script(name));
      total += counted + bytes - expected(name);
      onLoaded(bytes);
    });
    return fromScript(name, loaded);
  };
  // Over http: kept unpacked by an earlier visit (nothing to download: the total drops by it), or
  // fetched once the first paint is on screen. Cache Storage is asked at once: it reads no network.
  const lookups = new Map(needed.map((name) => [name, cacheable ? cachedUnpacked(python, indexURL, name) : null]));
  /** @param {string} name @returns {Promise<Asset>} */
  const fetched = async (name) => {
    const kept = await lookups.get(name);
    if (kept !== null && kept !== undefined) {
      total -= expected(name);
      onLoaded(0);
      return { bytes: kept, unpacked: true };
    }
    await firstPaint;
    const got = { bytes: 0 };
    // A NAME.bin that is missing (an unzipped zip leaves them out): its script instead.
    return { bytes: await download(name, got).catch(() => scripted(name, got.bytes)), unpacked: false };
  };
  const load = async (/** @type {string} */ name) => {
    if (mode === "inline") return { bytes: await fromScript(name, arrived(python, name)), unpacked: false };
    if (mode === "fetch") return fetched(name);
    await firstPaint;
    return { bytes: await scripted(name), unpacked: false };
  };
  const loading = new Map(needed.map((name) => [name, load(name)]));
  for (const promise of loading.values()) promise.catch(awaitedElsewhere); // each is awaited by whoever needs it
  return {
    get total() {
      return total;
    },
    cacheable,
    keptWhere: (/** @type {string[]} */ names) => keptWhere(python, indexURL, names),
    comesPacked: async (/** @type {string} */ name) => (await lookups.get(name)) === null,
    asset: (/** @type {string} */ name) => loading.get(name) ?? Promise.reject(new Error(`no asset ${name}`)),
  };
}
