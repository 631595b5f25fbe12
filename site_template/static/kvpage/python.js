// Stage "python": the page's Python workers and every lab call through them, each within the book's
// call_timeout (a worker that overruns is terminated: no SharedArrayBuffer to interrupt it), a spare
// started beside a slow call, and a reader's Run in a fresh Python of its own (decision 0052). Every
// message a worker says comes here once, through spawn.js's listener (decision 0060).

import { toPython } from "./protocol.js";
import { awaitedElsewhere } from "./settled.js";
import { pythonWorker, replaceWheel } from "./spawn.js";

/** @typedef {import("./protocol.js").Runtime} Runtime */

/**
 * A call or a reader's Run, from when the page asks until its worker answers. Timers: the call's
 * limit, and when a spare worker is made (a call's only).
 * @typedef {{id: number, message: import("./protocol.js").CallMessage | import("./protocol.js").ModelMessage,
 *   resolve: (text: string) => void, reject: (error: Error) => void, entry: Entry | null,
 *   timer?: ReturnType<typeof setTimeout>, spare?: ReturnType<typeof setTimeout>, up?: () => void}} Job
 *
 * A worker of the pool: starting, idle or busy; job, the call it answers; swapped, the swaps it has
 * had; trial, the reader's Run it was made for (it answers no call unless that Run is ok).
 * @typedef {{worker: Worker | null, state: "starting" | "idle" | "busy", job: Job | null, swapped: number, trial: Job | null}} Entry
 */

const SPARE_AFTER_MS = 250;
const MOST_WORKERS = 3;

class CallTimedOut extends Error {
  /** @param {number} seconds */
  constructor(seconds) {
    super(`no answer in ${seconds} s`);
    this.timedOut = true;
  }
}

// The pool: one object per page, its methods each one step of a worker's life or of a call's.
export class PythonPool {
  /** @param {PageConfig} config */
  constructor(config) {
    this.config = config;
    this.seconds = config.call_timeout;
    this.workers = /** @type {Set<Entry>} */ (new Set());
    this.waiting = /** @type {Job[]} the calls not yet sent to a worker */ ([]);
    this.next = 0;
    this.firstReady = /** @type {(version: string) => void} */ (() => undefined);
    this.firstFailed = /** @type {(error: Error) => void} */ (() => undefined);
    this.ready = /** @type {Promise<string>} */ (new Promise((resolve, reject) => {
      this.firstReady = resolve;
      this.firstFailed = reject;
    }));
    this.ready.catch(awaitedElsewhere); // boot reports it
    this.everReady = false;
    this.broken = false; // a worker failed to start after the first did: make no more spares
    this.swapped = 0; // swaps asked for: a worker that started on an older wheel is swapped once it is up
    this.lastSwap = /** @type {{python: Runtime, wheel: ArrayBuffer} | null} */ (null);
    this.swapsOut = /** @type {Map<number, {resolve: () => void, reject: (error: Error) => void}>} */ (new Map());
    this.reader = /** @type {Record<string, string>} */ ({}); // the reader's files every worker runs in place of the wheel's ({}: the book's model)
    this.readerCode = ""; // reader.py's text, which runs them (the editor's script sends it with its first Run)
    /** @type {Job | null} a reader's Run out, in a worker of its own (its entry's `trial`): calls wait */
    this.trying = null;
    this.start();
  }

  /** @param {Entry} entry @param {Worker} worker @returns {Promise<void>} */
  swapIn(entry, worker) {
    const id = (this.next += 1);
    if (this.lastSwap === null) return Promise.resolve();
    const { python, wheel } = this.lastSwap;
    entry.swapped = this.swapped;
    return new Promise((resolve, reject) => {
      this.swapsOut.set(id, { resolve, reject });
      toPython(worker, { type: "swap", id, runtime: python, wheel: wheel.slice(0) });
    });
  }

  // A new worker; `trial`, the reader's Run it is made for (it answers no call unless that Run is ok).
  /** @param {Job | null} trial @returns {Entry} */
  start(trial = null) {
    /** @type {Entry} */
    const entry = { worker: null, state: "starting", job: null, swapped: this.swapped, trial };
    this.workers.add(entry);
    // A loader may also throw at once (a browser that refuses the worker): the same failure.
    /** @type {import("./spawn.js").Listener} */
    const listener = { heard: (message) => this.receive(entry, message), broke: (why) => this.lost(entry, new Error(why)) };
    new Promise((/** @type {(worker: Promise<Worker>) => void} */ resolve) => resolve(pythonWorker(this.config, listener))).then(
      (worker) => this.started(entry, worker),
      (error) => this.lost(entry, error instanceof Error ? error : new Error(String(error))),
    );
    return entry;
  }

  /** @param {Entry} entry @param {Worker} worker */
  started(entry, worker) {
    if (!this.workers.has(entry)) return worker.terminate();
    entry.worker = worker;
    if (entry.swapped < this.swapped) {
      // asked for while it was being made: a swap that fails leaves it on the old model, as serve says
      this.swapIn(entry, worker).catch((error) => console.warn("kvpage: a new worker kept the old model:", error));
    }
  }

  /** What a worker said (protocol.js), for the entry it is. @param {Entry} entry @param {import("./protocol.js").FromPython} message */
  receive(entry, message) {
    if (message.type === "ready") this.readied(entry, message.version);
    else if (message.type === "failed") this.lost(entry, new Error(message.error));
    else if (message.type === "reply" && entry.job?.id === message.id) this.answered(entry, message.reply, message.dead);
    else if (message.type === "swapped" && this.swapsOut.has(message.id)) {
      const { resolve, reject } = /** @type {{resolve: () => void, reject: (error: Error) => void}} */ (this.swapsOut.get(message.id));
      this.swapsOut.delete(message.id);
      if (message.error) reject(new Error(message.error));
      else resolve();
    } else if (message.type === "progress" && message.phase === "decoded") {
      if (!this.everReady) performance.mark("kvpage:assets-decoded");
    }
  }

  /** @param {Entry} entry @param {string} version */
  readied(entry, version) {
    performance.mark("kvpage:worker-ready"); // one a worker: the second is the spare
    if (entry.trial) return this.tryOut(entry);
    entry.state = "idle";
    if (Object.keys(this.reader).length > 0) this.tell(entry, this.reader); // before any call it is sent
    if (!this.everReady) {
      this.everReady = true;
      this.firstReady(version);
    }
    this.dispatch();
  }

  // `dead`: answering it killed the worker's Python (the reader's model can), which then goes.
  /** @param {Entry} entry @param {string} reply */
  answered(entry, reply, dead = false) {
    const job = entry.job;
    if (job === null) return;
    clearTimeout(job.timer);
    clearTimeout(job.spare);
    entry.state = "idle";
    entry.job = null;
    if (entry.trial) this.tried(entry, reply, dead);
    else if (dead) this.drop(entry);
    job.resolve(reply);
    this.dispatch();
  }

  // A worker gone for good (its Python dead, or a model no longer the page's), and one free again.
  /** @param {Entry} entry */
  drop(entry) {
    this.workers.delete(entry);
    entry.worker?.terminate();
    this.topUp();
  }

  // The reader's Run goes to the fresh Python made for it, which is up: `performance` marks when.
  // "Back to the book's model" (no sources) has no time limit: the limit stops a reader's code that
  // never returns, and the book's own model answered every lab at build time; on a slow, loaded
  // machine its fresh import could pass the limit and leave the reader's model in place.
  /** @param {Entry} entry */
  tryOut(entry) {
    performance.mark("kvpage:reader-python");
    const job = entry.trial;
    if (job === null || entry.worker === null || job.message.type !== "model") return;
    entry.state = "busy";
    entry.job = job;
    if (Object.keys(job.message.sources).length > 0) {
      job.timer = setTimeout(() => this.timedOut(entry), this.seconds * 1000);
    }
    toPython(entry.worker, job.message);
    job.up?.();
  }

  // The Run made `entry` for answered `reply`: if ok, its model is the page's and `entry` answers the
  // calls, every other worker that is up going (they ran the model before; one still starting is
  // fresh, and is told the new one when up); else `entry` goes, and the last good model answers on.
  /** @param {Entry} entry @param {string} reply @param {boolean} dead */
  tried(entry, reply, dead) {
    const message = entry.trial?.message;
    const sources = message?.type === "model" ? message.sources : {};
    this.trying = entry.trial = null;
    let ok = false;
    try {
      ok = !dead && JSON.parse(reply).ok === true;
    } catch (error) {
      console.warn("kvpage: a Run's answer is not JSON, so it failed:", error);
    }
    if (!ok) return this.drop(entry);
    this.reader = sources;
    for (const other of this.workers) if (other !== entry && other.state !== "starting") this.drop(other);
  }

  // A worker that could not start, or broke: its call (if any) fails, and so does the page's start
  // if no worker ever came up; otherwise the others carry on, and waiting calls fail only if none is left.
  /** @param {Entry} entry @param {Error} error */
  lost(entry, error) {
    if (!this.workers.has(entry)) return; // gone already (its loader and its worker may both say so)
    if (entry.state === "starting") this.broken = true;
    this.workers.delete(entry);
    entry.worker?.terminate();
    const job = entry.job ?? entry.trial; // a Run's job is its worker's from the start
    if (entry.trial) this.trying = entry.trial = null;
    if (job) {
      clearTimeout(job.timer);
      clearTimeout(job.spare);
      job.reject(error);
    }
    if (!this.everReady) {
      if (this.workers.size === 0) this.firstFailed(error);
      return;
    }
    if (this.workers.size === 0) for (const waiting of this.waiting.splice(0)) waiting.reject(error);
    else this.topUp();
    this.dispatch(); // the calls a Run held
  }

  /** @param {Entry} entry */
  timedOut(entry) {
    const job = entry.job;
    if (job === null) return;
    entry.job = null;
    if (entry.trial) this.trying = entry.trial = null;
    this.workers.delete(entry);
    entry.worker?.terminate();
    clearTimeout(job.spare);
    job.reject(new CallTimedOut(this.seconds));
    this.topUp();
    this.dispatch();
  }

  free() {
    return [...this.workers].filter((entry) => entry.state !== "busy" && !entry.trial).length;
  }

  // One worker free (idle, or starting) for the calls to come.
  topUp() {
    if (this.broken && this.workers.size > 0) return;
    if (this.free() === 0 && this.workers.size < MOST_WORKERS) this.start();
  }

  dispatch() {
    while (this.waiting.length > 0 && this.trying === null) {
      const entry = [...this.workers].find((candidate) => candidate.state === "idle");
      const worker = entry?.worker;
      if (entry === undefined || !worker) return;
      const job = /** @type {Job} */ (this.waiting.shift());
      entry.state = "busy";
      entry.job = job;
      job.timer = setTimeout(() => this.timedOut(entry), this.seconds * 1000);
      job.spare = setTimeout(() => this.topUp(), SPARE_AFTER_MS);
      job.entry = entry;
      toPython(worker, job.message);
    }
  }

  // The model the page runs, `sources`, put into the running Python of `entry` (its answer is not awaited:
  // the worker reads its messages in order, so every later call is answered by it).
  /** @param {Entry} entry @param {Record<string, string>} sources */
  tell(entry, sources) {
    if (entry.worker !== null) toPython(entry.worker, { type: "model", id: 0, code: this.readerCode, sources, labs: [] });
  }

  // A reader's Run: `sources` (path -> text, {} the book's model) in a fresh worker by `code`
  // (reader.py's text), every lab of `labs` computed with them (protocol.js, ReaderLab); `up()` is
  // called when that Python is up and the Run sent (its time limit counts from then). Resolves to
  // reader.py's answer as text, and if it is ok the page runs `sources` from now on, in every
  // worker. One at a time (the editor waits for each).
  /**
   * @param {string} code @param {Record<string, string>} sources @param {import("./protocol.js").ReaderLab[]} labs
   * @param {() => void} [up] @returns {Promise<string>}
   */
  model(code, sources, labs, up = () => undefined) {
    this.readerCode = code;
    performance.mark("kvpage:reader-run");
    return new Promise((resolve, reject) => {
      this.next += 1;
      const id = this.next;
      /** @type {Job} */
      const job = { id, message: { type: "model", id, code, sources, labs }, resolve, reject, entry: null, up };
      this.trying = job;
      job.entry = this.start(job);
    });
  }

  // The model of `python` (a page config's loader, with its wheel's packed bytes) in every worker.
  /** @param {Runtime} python @param {ArrayBuffer} packed */
  async swap(python, packed) {
    const wheel = await replaceWheel(python, packed); // unpacked, and lent to the workers made from now on
    this.swapped += 1;
    this.lastSwap = { python, wheel };
    this.config.python = python; // the workers made from now on start on it
    return Promise.all([...this.workers].flatMap((entry) => (entry.worker ? [this.swapIn(entry, entry.worker)] : [])));
  }

  /** @param {string} request @returns {Promise<string>} */
  call(request) {
    return new Promise((resolve, reject) => {
      this.next += 1;
      this.waiting.push({ id: this.next, message: { type: "call", id: this.next, request }, resolve, reject, entry: null });
      this.dispatch();
    });
  }
}
