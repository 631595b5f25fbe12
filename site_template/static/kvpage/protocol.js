// Every message between the page and its workers, typed by direction: Python's worker's (ToPython,
// FromPython) and the unpacker's (ToUnpacker, FromUnpacker), each a union on `type`, so tsc refuses a
// field one side sends and the other does not read. Each side sends only through the functions below,
// and one listener a worker reads what it says (decision 0060).

/** The page config's "python" (config.d.ts, from sitegen.runtime.bundle.Loader). @typedef {Loader} Runtime */

/**
 * Where an unpacker keeps the binaries in Cache Storage (stage "assets", keptWhere).
 * @typedef {{cache: string, keys: Record<string, string>, site: string, current: string[]}} KeptWhere
 */

/**
 * One lab of the page as a reader's Run computes it: request, its update at its current values and
 * state (the JSON text kvpage.bridge.handle takes); texts and parts, the outputs its view must have.
 * @typedef {{request: string, texts: string[], parts: string[]}} ReaderLab
 */

/**
 * Page → Python's worker.
 * @typedef {{type: "start", runtime: Runtime, page: string}} StartMessage
 *   restore Python: runtime, the page config's; page, the page's URL. Pyodide sets itself up at once.
 * @typedef {{type: "asset", name: string, bytes: ArrayBuffer, module: WebAssembly.Module | null}} AssetMessage
 *   one binary it restores from, unpacked and lent (transferred); module (the wasm's only), the
 *   wasm compiled already, if the page has it.
 * @typedef {{type: "call", id: number, request: string}} CallMessage
 *   request: the JSON text kvpage.bridge.handle takes.
 * @typedef {{type: "swap", id: number, runtime: Runtime, wheel: ArrayBuffer}} SwapMessage
 *   `serve` after a model edit: wheel, the unpacked bytes of runtime's (the new config's) wheel.
 * @typedef {{type: "model", id: number, code: string, sources: Record<string, string>, labs: ReaderLab[]}} ModelMessage
 *   a reader's Run (reader.js, reader.py), at most one a worker: code, reader.py's text (the editor's
 *   script brings it: the worker's own has none); sources, the files of kvpage the reader changed ({}
 *   the book's model), run in place of the wheel's, and every lab of `labs` computed with them;
 *   answered by a "reply" whose text is reader.py's answer. `labs` empty: the model the page runs
 *   already, put into a worker made after it.
 * @typedef {StartMessage | AssetMessage | CallMessage | SwapMessage | ModelMessage} ToPython
 */

/**
 * Page → unpacker.
 * @typedef {{type: "unpack", name: string, bytes: ArrayBuffer, size: number, keep: boolean}} UnpackMessage
 *   (an unpacker) bytes: the zstd frame of `name`, transferred, `size` bytes unpacked; keep: a copy is kept.
 * @typedef {{type: "keep", where: KeptWhere, files: Record<string, ArrayBuffer>}} KeepMessage
 *   (an unpacker) keep what it decoded, and files, in Cache Storage.
 * @typedef {UnpackMessage | KeepMessage} ToUnpacker
 */

/**
 * Python's worker → page.
 * @typedef {{type: "returned", assets: Record<string, ArrayBuffer>}} ReturnedMessage
 *   the lent bytes, transferred back once read.
 * @typedef {{type: "compiled", module: WebAssembly.Module}} CompiledMessage
 *   the compiled wasm, which later workers start from.
 * @typedef {"started" | "compiled" | "decoded" | "instantiated" | "restored"} Phase
 * @typedef {{type: "progress", phase: Phase, at: number}} ProgressMessage
 *   how far it is; at: when, ms since the epoch (the page's clock too).
 * @typedef {{type: "ready", version: string}} ReadyMessage
 *   Python answers calls from now on.
 * @typedef {{type: "failed", error: string}} FailedMessage
 *   it could not start: why, as a sentence.
 * @typedef {{type: "reply", id: number, reply: string, dead?: boolean}} ReplyMessage
 *   reply: the JSON text handle returned (for "model", reader.py's answer); dead: Python died
 *   answering it (an exit, a fatal error), so the worker answers nothing more.
 * @typedef {{type: "swapped", id: number, error?: string}} SwappedMessage
 *   the new model answers from now on (error: why not; the old one still answers).
 * @typedef {ReturnedMessage | CompiledMessage | ProgressMessage | ReadyMessage | FailedMessage | ReplyMessage
 *   | SwappedMessage} FromPython
 */

/**
 * Unpacker → page.
 * @typedef {{type: "unpacked", name: string, bytes: ArrayBuffer, at: number}} UnpackedMessage
 *   (an unpacker) the binary unpacked, transferred.
 * @typedef {{type: "unfinished", name: string, error: string}} UnfinishedMessage
 *   (an unpacker) `name` could not be unpacked: why.
 * @typedef {{type: "kept", error?: string}} KeptMessage
 *   (an unpacker) they are in Cache Storage (error: why not).
 * @typedef {UnpackedMessage | UnfinishedMessage | KeptMessage} FromUnpacker
 */

/**
 * `message` to Python's worker `worker`, the ArrayBuffers in `transfer` transferred (lent), not copied.
 * @param {Worker} worker
 * @param {ToPython} message
 * @param {Transferable[]} [transfer]
 */
export function toPython(worker, message, transfer = []) {
  worker.postMessage(message, transfer);
}

/**
 * `message` to the unpacker `worker`, the ArrayBuffers in `transfer` transferred.
 * @param {Worker} worker
 * @param {ToUnpacker} message
 * @param {Transferable[]} [transfer]
 */
export function toUnpacker(worker, message, transfer = []) {
  worker.postMessage(message, transfer);
}

/**
 * `message` from the worker this runs in to the page that made it.
 * @template {FromPython | FromUnpacker} Message
 * @param {Message} message
 * @param {Transferable[]} [transfer]
 */
export function toPage(message, transfer = []) {
  globalThis.postMessage(message, { transfer });
}

/**
 * What a worker said, as the page reads it: Python's worker's or the unpacker's, by which it is.
 * @template {FromPython | FromUnpacker} Message
 * @param {MessageEvent<Message>} event
 * @returns {Message}
 */
export const fromWorker = (event) => event.data;

/**
 * What the page said, as a worker reads it.
 * @template {ToPython | ToUnpacker} Message
 * @param {MessageEvent<Message>} event
 * @returns {Message}
 */
export const fromPage = (event) => event.data;
