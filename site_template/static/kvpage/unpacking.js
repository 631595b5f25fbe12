// Stage "unpacking": the page's side of the unpacker (unpacker.js), the one worker that decodes the
// zstd binaries as they arrive while Python's worker sets itself up (decision 0013), made once the code
// is in if any comes packed, and ended after the last unless it keeps them in Cache Storage (decision
// 0025). One listener hears all it says, each answer going to the job that waits for it (decision 0060).

import { fromWorker, toUnpacker } from "./protocol.js";
import { awaitedElsewhere } from "./settled.js";

/** @typedef {import("./protocol.js").Runtime} Runtime */
/** @typedef {import("./protocol.js").FromUnpacker} FromUnpacker */
/** @typedef {import("./assets.js").Opened} Opened */

/** The unpacker: its worker, the zstd binaries still to come, and the jobs that wait for an answer. */
class Unpacker {
  /** @param {Worker} worker @param {number} left */
  constructor(worker, left) {
    this.worker = worker;
    this.left = left;
    /** @type {Map<string, (message: FromUnpacker) => void>} binary's name (or "" for "keep") → its job */
    this.jobs = new Map();
    worker.addEventListener("message", (/** @type {MessageEvent<FromUnpacker>} */ event) => {
      const message = fromWorker(event);
      this.answer(message.type === "kept" ? "" : message.name, message);
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const error = event.message || "the unpacker stopped";
      for (const name of [...this.jobs.keys()]) {
        this.answer(name, name === "" ? { type: "kept", error } : { type: "unfinished", name, error });
      }
    });
  }

  /** @param {string} name @param {FromUnpacker} message */
  answer(name, message) {
    this.jobs.get(name)?.(message);
    this.jobs.delete(name);
  }

  /** @param {import("./protocol.js").ToUnpacker} message @param {Transferable[]} transfer @returns {Promise<FromUnpacker>} */
  ask(message, transfer) {
    return new Promise((resolve) => {
      this.jobs.set(message.type === "keep" ? "" : message.name, resolve);
      toUnpacker(this.worker, message, transfer);
    });
  }
}

/** The page's unpacking: `python`'s binaries from `assets`; `code()`, the unpacker's Blob URL once the code is in. */
export class Unpacking {
  /** @param {Runtime} python @param {Opened} assets @param {() => Promise<string>} code */
  constructor(python, assets, code) {
    this.python = python;
    this.assets = assets;
    this.code = code;
    /** @type {Promise<Unpacker | null> | null} */
    this.made = null;
  }

  /** The unpacker, made once, if any zstd binary comes packed (not from Cache Storage); else null. */
  unpacker() {
    const python = this.python;
    this.made ??= (async () => {
      const names = [python.wasm, python.snapshot, python.wheel].filter((name) => python.encoding[name] === "zstd");
      const left = (await Promise.all(names.map(this.assets.comesPacked))).filter(Boolean).length;
      return left === 0 ? null : new Unpacker(new Worker(await this.code()), left);
    })();
    this.made.catch(awaitedElsewhere); // the binaries' own failures are the ones reported
    return this.made;
  }

  /** One zstd binary fewer (decoded, or never to come): the last ends it, unless it keeps them (keep() ends it then). */
  done() {
    const last = (/** @type {Unpacker | null} */ made) => {
      if (made !== null && (made.left -= 1) === 0 && !this.assets.cacheable) made.worker.terminate();
    };
    this.unpacker().then(last, awaitedElsewhere); // a binary reports its own failure
  }

  /** The unpacker ended, if there is one, with what it holds. */
  end() {
    this.made?.then((made) => made?.worker.terminate(), awaitedElsewhere); // none was made
  }

  /**
   * The zstd binary `name`, its packed bytes `packed`, decoded; fails with `failure()`.
   * @param {string} name @param {ArrayBuffer} packed @param {() => Error} failure @returns {Promise<ArrayBuffer>}
   */
  async unpack(name, packed, failure) {
    const made = await this.unpacker();
    if (made === null) throw failure(); // Cache Storage said it would come unpacked
    try {
      const job = { type: /** @type {const} */ ("unpack"), name, bytes: packed, size: this.python.unpacked[name], keep: this.assets.cacheable };
      const answer = await made.ask(job, [packed]);
      if (answer.type !== "unpacked") throw failure();
      performance.mark(`kvpage:unpacked-${name}`, { startTime: answer.at - performance.timeOrigin });
      return answer.bytes;
    } finally {
      this.done();
    }
  }

  /**
   * The binaries `names` kept in Cache Storage for the next visit by the unpacker (made now if none
   * was): what it decoded, and `files` (the page's own copies, transferred). Sets
   * <html data-python-cache="kept"> once they are.
   * @param {string[]} names @param {Record<string, ArrayBuffer>} files
   */
  async keep(names, files) {
    const made = (await this.unpacker()) ?? new Unpacker(new Worker(await this.code()), 0);
    try {
      const answer = await made.ask({ type: "keep", where: this.assets.keptWhere(names), files }, Object.values(files));
      if (answer.type === "kept" && !answer.error) document.documentElement.dataset.pythonCache = "kept";
      else console.info("kvpage: the unpacked binaries are not kept:", "error" in answer ? answer.error : answer);
    } finally {
      made.worker.terminate();
    }
  }
}
