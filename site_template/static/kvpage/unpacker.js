// Stage "worker", the unpacker: decodes the zstd binaries off the page as they arrive, with the
// build's decoder (sitegen/runtime/packing.py), and keeps what was unpacked in Cache Storage for the
// next visit. Its messages: ToUnpacker in, FromUnpacker out (protocol.js, decision 0060).

import { fromPage, toPage } from "./protocol.js";

/** @typedef {import("./protocol.js").ToUnpacker} ToUnpacker */
/** @typedef {import("./protocol.js").FromUnpacker} FromUnpacker */
/** @typedef {import("./protocol.js").KeptWhere} KeptWhere */

/** @param {FromUnpacker} message @param {Transferable[]} [transfer] */
const post = (message, transfer = []) => toPage(message, transfer);
/** @param {unknown} error */
const why = (error) => (error instanceof Error ? error.message : String(error));

/**
 * The decoder's exports (a wasm module of the build's).
 * @typedef {{memory: WebAssembly.Memory, malloc(size: number): number, free(at: number): void,
 *   ZSTD_decompress(to: number, size: number, from: number, length: number): number,
 *   ZSTD_isError(code: number): number}} Zstd
 */

/** @type {Promise<Zstd> | null} */
let zstd = null;
// The wasm the build put in the decoder's script as base64 (globalThis.kvpageZstd, before this
// script in the unpacker's Blob), instantiated on first use.
function zstdDecoder() {
  if (zstd !== null) return zstd;
  const text = globalThis.kvpageZstd ?? "";
  const bytes = typeof Uint8Array.fromBase64 === "function"
    ? Uint8Array.fromBase64(text)
    : Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  // Its memory grows as it needs (it reads its buffer anew after every call): nothing to do on growth.
  const imports = { env: { emscripten_notify_memory_growth: () => undefined } };
  const source = /** @type {Uint8Array<ArrayBuffer>} */ (bytes);
  zstd = WebAssembly.instantiate(source, imports).then(({ instance }) => /** @type {Zstd} */ (/** @type {unknown} */ (instance.exports)));
  return zstd;
}

/**
 * The zstd frame `packed` decoded into a new buffer of `size` bytes; fails with `failure()` unless
 * it is one frame of exactly that size whose checksum (XXH64, which the decoder verifies) matches.
 * @param {ArrayBuffer} packed @param {number} size @param {() => Error} failure
 */
async function unzstd(packed, size, failure) {
  const z = await zstdDecoder().catch((error) => {
    console.warn("kvpage: the zstd decoder did not start:", error);
    throw failure();
  });
  const from = z.malloc(packed.byteLength);
  const to = z.malloc(size);
  try {
    if (from === 0 || to === 0) throw failure();
    new Uint8Array(z.memory.buffer, from, packed.byteLength).set(new Uint8Array(packed));
    const made = z.ZSTD_decompress(to, size, from, packed.byteLength);
    if (z.ZSTD_isError(made) || made >>> 0 !== size) throw failure();
    return new Uint8Array(z.memory.buffer, to, size).slice();
  } finally {
    z.free(from);
    z.free(to);
  }
}

/** @type {Record<string, Uint8Array>} what was decoded, kept for Cache Storage (handler "unpack") */
const keeping = {};

/**
 * The unpacked binaries `files` kept in Cache Storage where `where` says (only the names of its
 * `keys`), and every entry under `where.site` that is not `where.current` (an older build) deleted.
 * @param {KeptWhere} where @param {Record<string, Uint8Array | ArrayBuffer>} files
 */
async function keepUnpacked(where, files) {
  const cache = await globalThis.caches.open(where.cache);
  const current = new Set(where.current);
  for (const request of await cache.keys()) {
    if (request.url.startsWith(where.site) && !current.has(request.url)) await cache.delete(request);
  }
  const headers = { "content-type": "application/octet-stream" };
  for (const [name, url] of Object.entries(where.keys)) {
    await cache.put(url, new Response(/** @type {BodyInit} */ (files[name]), { headers }));
  }
}

/**
 * One handler for each message the page sends the unpacker.
 * @type {{[Type in ToUnpacker["type"]]: (message: Extract<ToUnpacker, {type: Type}>) => Promise<void>}}
 */
const handlers = {
  // A zstd binary decoded, and a copy kept for Cache Storage if `keep` (the page lends the one it
  // gets to Python's workers, which compile the wasm themselves).
  async unpack({ name, bytes, size, keep }) {
    try {
      const unpacked = await unzstd(bytes, size, () => new Error(`could not unpack ${name}`));
      if (keep) keeping[name] = unpacked.slice();
      post({ type: "unpacked", name, bytes: unpacked.buffer, at: performance.timeOrigin + performance.now() }, [unpacked.buffer]);
    } catch (error) {
      post({ type: "unfinished", name, error: why(error) });
    }
  },
  // Once the page's first worker is ready: what it decoded, and `files` (the page's own), kept.
  async keep({ where, files }) {
    try {
      await keepUnpacked(where, { ...keeping, ...files });
      post({ type: "kept" });
    } catch (error) {
      post({ type: "kept", error: why(error) });
    }
  },
};

/** The unpacker answers the page: each message to its handler. */
export function listenAsUnpacker() {
  globalThis.addEventListener("message", (event) => {
    const message = /** @type {ToUnpacker} */ (fromPage(event));
    const handler = /** @type {(message: ToUnpacker) => Promise<void>} */ (handlers[message.type]);
    handler(message);
  });
}
