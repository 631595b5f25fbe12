// Stage "python": the page's Python workers, and every lab call through them, each within the
// book's time limit.
//
// The labs call call(request) (the JSON text kvpage.bridge.handle takes) and get back the text it
// returns. Every worker holds the same restored Python and the labs keep their state in the page,
// not in Python, so any worker can answer any call: each call waits here until a worker is free,
// and goes to one worker at a time. A call with no answer after the book's call_timeout fails with
// {timedOut: true}: its worker is terminated (the only way to stop Python that loops, since a
// static page has no SharedArrayBuffer to interrupt it) and the lab says so, its controls and state
// kept (stage "labs").
//
// One worker serves every lab while calls are quick: a reader who never waits on Python pays for
// one. When a call has been out for SPARE_AFTER_MS and no worker is free, a spare is started
// beside it (from the same bytes, and the wasm the first one compiled), so the other labs answer
// again as soon as it is up while that call runs, and if the call is stopped a restored Python
// is ready for its lab too. A stopped worker is replaced if no other is free. At most
// MOST_WORKERS run at once.
//
// A reader's Run (stage "reader") happens in a Python of its own: model(sources, labs) starts a
// fresh worker from the snapshot's bytes the page holds (no download; the wasm compiled already,
// where the engine can share it), runs the reader's files there and computes every lab, within the
// same time limit, counted from when that Python is up. Lab calls wait meanwhile. Only if it
// answers ok is the reader's model the page's (`reader`): that worker then answers the calls, and
// every other worker, which ran the model before, goes; a worker made from then on runs the
// reader's files before its first call. A Run that fails, is stopped or kills its Python takes its
// worker with it, and the workers of the last good model answer on, untouched: whatever the
// reader's code did to its Python (exit, an interrupt, a module or builtin replaced, the stack
// overflowed) never reaches the model the labs show. "Back to the book's model" is a Run of no
// files, so it is the snapshot's Python, exactly the book's. A worker whose Python died answering a
// call (the reader's model can kill it too) is replaced by a fresh one. The reader's model lives as
// long as the page: no other page, no link and no later visit sees it.
//
// Under `serve`, a model edit swaps the new model into every worker's running Python (swap(python,
// wheel): the new page config's loader, and its wheel's packed bytes); workers started later start
// on it. Each worker answers its calls in order, so a call sent before the swap is answered by the
// old model and every later one by the new.

import { fromWorker, toWorker } from "./protocol.js";
import { pythonWorker, replaceWheel } from "./spawn.js";

/**
 * A call or a reader's Run, from when the page asks until its worker answers (its message is the
 * protocol's, so a field it does not have fails tsc). Timers: the call's limit, and when a spare
 * worker is made (a call's only).
 * @typedef {{id: number, message: import("./protocol.js").CallMessage | import("./protocol.js").ModelMessage,
 *   resolve?: (text: string) => void, reject: (error: Error) => void, entry: object | null,
 *   timer?: ReturnType<typeof setTimeout>, spare?: ReturnType<typeof setTimeout>, up?: () => void}} Job
 */

const SPARE_AFTER_MS = 250;
const MOST_WORKERS = 3;

class CallTimedOut extends Error {
  constructor(seconds) {
    super(`no answer in ${seconds} s`);
    this.timedOut = true;
  }
}

// The pool: one object per page, its methods each one step of a worker's life or of a call's.
export class PythonPool {
  constructor(config) {
    this.config = config;
    this.seconds = config.call_timeout;
    this.workers = new Set(); // {worker, state: "starting" | "idle" | "busy", job, swapped, trial}
    /** @type {Job[]} the calls and model swaps not yet answered; entry: the worker each went to */
    this.waiting = [];
    this.next = 0;
    this.ready = new Promise((resolve, reject) => {
      this.firstReady = resolve;
      this.firstFailed = reject;
    });
    this.ready.catch(() => {}); // boot reports it
    this.everReady = false;
    this.broken = false; // a worker failed to start after the first did: make no more spares
    this.swapped = 0; // swaps asked for: a worker that started on an older wheel is swapped once it is up
    this.lastSwap = null; // {python, wheel}
    this.swapsOut = new Map(); // id -> {resolve, reject}
    this.reader = {}; // the reader's files every worker runs in place of the wheel's ({}: the book's model)
    this.readerCode = ""; // reader.py's text, which runs them (the editor's script sends it with its first Run)
    /** @type {Job | null} a reader's Run out, in a worker of its own (its entry's `trial`): calls wait */
    this.trying = null;
    this.start();
  }

  swapIn(entry) {
    const id = (this.next += 1);
    const { python, wheel } = this.lastSwap;
    entry.swapped = this.swapped;
    return new Promise((resolve, reject) => {
      this.swapsOut.set(id, { resolve, reject });
      toWorker(entry.worker, { type: "swap", id, runtime: python, wheel: wheel.slice(0) });
    });
  }

  // A new worker; `trial`, the reader's Run it is made for (it answers no call unless that Run is ok).
  start(trial = null) {
    const entry = { worker: null, state: "starting", job: null, swapped: this.swapped, trial };
    this.workers.add(entry);
    // A loader may also throw at once (a browser that refuses the worker): the same failure.
    new Promise((resolve) => resolve(pythonWorker(this.config))).then(
      (worker) => this.started(entry, worker),
      (error) => this.lost(entry, error),
    );
    return entry;
  }

  started(entry, worker) {
    if (!this.workers.has(entry)) return worker.terminate();
    entry.worker = worker;
    worker.addEventListener("message", (event) => this.receive(entry, fromWorker(event)));
    if (entry.swapped < this.swapped) this.swapIn(entry).catch(() => {}); // asked for while it was being made
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.lost(entry, new Error(event.message || "Python's worker stopped"));
    });
  }

  /** What a worker said (protocol.js), for the entry it is. @param {import("./protocol.js").ToPage} message */
  receive(entry, message) {
    if (message.type === "ready") this.readied(entry, message.version);
    else if (message.type === "failed") this.lost(entry, new Error(message.error));
    else if (message.type === "reply" && entry.job?.id === message.id) this.answered(entry, message.reply, message.dead);
    else if (message.type === "swapped" && this.swapsOut.has(message.id)) {
      const { resolve, reject } = this.swapsOut.get(message.id);
      this.swapsOut.delete(message.id);
      if (message.error) reject(new Error(message.error));
      else resolve();
    } else if (message.type === "progress" && message.phase === "decoded") {
      if (!this.everReady) performance.mark("kvpage:assets-decoded");
    }
  }

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
  answered(entry, reply, dead = false) {
    const job = entry.job;
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
  drop(entry) {
    this.workers.delete(entry);
    entry.worker.terminate();
    this.topUp();
  }

  // The reader's Run goes to the fresh Python made for it, which is up: `performance` marks when.
  // "Back to the book's model" (no sources) has no time limit: the limit stops a reader's code that
  // never returns, and the book's own model answered every lab at build time; on a slow, loaded
  // machine its fresh import could pass the limit and leave the reader's model in place.
  tryOut(entry) {
    performance.mark("kvpage:reader-python");
    entry.state = "busy";
    entry.job = entry.trial;
    if (Object.keys(entry.job.message.sources).length > 0) {
      entry.job.timer = setTimeout(() => this.timedOut(entry), this.seconds * 1000);
    }
    toWorker(entry.worker, entry.job.message);
    entry.job.up?.();
  }

  // The Run made `entry` for answered `reply`: if ok, its model is the page's and `entry` answers the
  // calls, every other worker that is up going (they ran the model before; one still starting is
  // fresh, and is told the new one when up); else `entry` goes, and the last good model answers on.
  tried(entry, reply, dead) {
    const sources = entry.trial.message.sources;
    this.trying = entry.trial = null;
    let ok = false;
    try {
      ok = !dead && JSON.parse(reply).ok === true;
    } catch {
      // An answer that is not JSON: a Run that failed.
    }
    if (!ok) return this.drop(entry);
    this.reader = sources;
    for (const other of this.workers) if (other !== entry && other.state !== "starting") this.drop(other);
  }

  // A worker that could not start, or broke: its call (if any) fails, and so does the page's start
  // if no worker ever came up; otherwise the others carry on, and waiting calls fail only if none is left.
  lost(entry, error) {
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

  timedOut(entry) {
    const job = entry.job;
    entry.job = null;
    if (entry.trial) this.trying = entry.trial = null;
    this.workers.delete(entry);
    entry.worker.terminate();
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
      if (entry === undefined) return;
      const job = this.waiting.shift();
      entry.state = "busy";
      entry.job = job;
      job.timer = setTimeout(() => this.timedOut(entry), this.seconds * 1000);
      job.spare = setTimeout(() => this.topUp(), SPARE_AFTER_MS);
      job.entry = entry;
      toWorker(entry.worker, job.message);
    }
  }

  // The model the page runs, `sources`, put into the running Python of `entry` (its answer is not awaited:
  // the worker reads its messages in order, so every later call is answered by it).
  tell(entry, sources) {
    toWorker(entry.worker, { type: "model", id: 0, code: this.readerCode, sources, labs: [] });
  }

  // A reader's Run: `sources` (path -> text, {} the book's model) in a fresh worker by `code`
  // (reader.py's text), every lab of `labs` computed with them (protocol.js, ReaderLab); `up()` is
  // called when that Python is up and the Run sent (its time limit counts from then). Resolves to
  // reader.py's answer as text, and if it is ok the page runs `sources` from now on, in every
  // worker. One at a time (the editor waits for each).
  model(code, sources, labs, up = () => {}) {
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
  async swap(python, packed) {
    const wheel = await replaceWheel(python, packed); // unpacked, and lent to the workers made from now on
    this.swapped += 1;
    this.lastSwap = { python, wheel };
    this.config.python = python; // the workers made from now on start on it
    return Promise.all([...this.workers].filter((entry) => entry.worker !== null).map((entry) => this.swapIn(entry)));
  }

  call(request) {
    return new Promise((resolve, reject) => {
      this.next += 1;
      this.waiting.push({ id: this.next, message: { type: "call", id: this.next, request }, resolve, reject, entry: null });
      this.dispatch();
    });
  }
}
