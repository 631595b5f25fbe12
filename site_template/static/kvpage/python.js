// Stage "python": the page's Python workers, and every lab call through them, each within the
// book's time limit.
//
// The labs call call(request) (the JSON text kvpage.bridge.handle takes) and get back the text it
// returns. Every worker holds the same restored Python and the labs keep their state in the page,
// not in Python, so any worker can answer any call: each call waits here until a worker is free,
// and goes to one worker at a time. A call with no answer after the book's call_timeout fails with
// {timedOut: true}: its worker is terminated (the only way to stop Python that loops, since a
// static page has no SharedArrayBuffer to interrupt it) and the lab is reset (stage "labs").
//
// One worker serves every lab while calls are quick: a reader who never waits on Python pays for
// one. When a call has been out for SPARE_AFTER_MS and no worker is free, a spare is started
// beside it (from the same bytes, and the wasm the first one compiled), so the other labs answer
// again as soon as it is up while that call runs, and if the call is stopped a restored Python
// is ready for its lab too. A stopped worker is replaced if no other is free. At most
// MOST_WORKERS run at once.
//
// Under `serve`, a model edit swaps the new model into every worker's running Python (swap(python,
// wheel): the new page config's loader, and its wheel's packed bytes); workers started later start
// on it. Each worker answers its calls in order, so a call sent before the swap is answered by the
// old model and every later one by the new.

const SPARE_AFTER_MS = 250;
const MOST_WORKERS = 3;

class CallTimedOut extends Error {
  constructor(seconds) {
    super(`no answer in ${seconds} s`);
    this.timedOut = true;
  }
}

function pythonPool(config) {
  const seconds = config.call_timeout;
  const workers = new Set(); // {worker, state: "starting" | "idle" | "busy", job}
  const waiting = []; // {id, request, resolve, reject}
  let next = 0;
  let firstReady;
  let firstFailed;
  const ready = new Promise((resolve, reject) => {
    firstReady = resolve;
    firstFailed = reject;
  });
  ready.catch(() => {}); // boot reports it
  let everReady = false;
  let broken = false; // a worker failed to start after the first did: make no more spares

  let swapped = 0; // swaps asked for: a worker that started on an older wheel is swapped once it is up
  let lastSwap = null; // {python, wheel}
  const swapsOut = new Map(); // id -> {resolve, reject}

  function swapIn(entry) {
    const id = (next += 1);
    const { python, wheel } = lastSwap;
    entry.swapped = swapped;
    return new Promise((resolve, reject) => {
      swapsOut.set(id, { resolve, reject });
      entry.worker.postMessage({ type: "swap", id, runtime: python, wheel: wheel.slice(0) });
    });
  }

  function start() {
    const entry = { worker: null, state: "starting", job: null, swapped };
    workers.add(entry);
    // A loader may also throw at once (a browser that refuses the worker): the same failure.
    new Promise((resolve) => resolve(pythonWorker(config))).then(
      (worker) => {
        if (!workers.has(entry)) return worker.terminate();
        entry.worker = worker;
        worker.addEventListener("message", (event) => receive(entry, event.data));
        if (entry.swapped < swapped) swapIn(entry).catch(() => {}); // asked for while it was being made
        worker.addEventListener("error", (event) => {
          event.preventDefault();
          lost(entry, new Error(event.message || "Python's worker stopped"));
        });
      },
      (error) => lost(entry, error),
    );
    return entry;
  }

  function receive(entry, message) {
    if (message.type === "ready") {
      entry.state = "idle";
      performance.mark("kvpage:worker-ready"); // one a worker: the second is the spare
      if (!everReady) {
        everReady = true;
        firstReady(message.version);
      }
      dispatch();
    } else if (message.type === "failed") {
      lost(entry, new Error(message.error));
    } else if (message.type === "reply" && entry.job?.id === message.id) {
      const job = entry.job;
      clearTimeout(job.timer);
      clearTimeout(job.spare);
      entry.state = "idle";
      entry.job = null;
      job.resolve(message.reply);
      dispatch();
    } else if (message.type === "swapped" && swapsOut.has(message.id)) {
      const { resolve, reject } = swapsOut.get(message.id);
      swapsOut.delete(message.id);
      if (message.error) reject(new Error(message.error));
      else resolve();
    } else if (message.type === "progress" && message.phase === "decoded") {
      if (!everReady) performance.mark("kvpage:assets-decoded");
    }
  }

  // A worker that could not start, or broke: its call (if any) fails, and so does the page's start
  // if no worker ever came up; otherwise the others carry on, and waiting calls fail only if none is left.
  function lost(entry, error) {
    if (entry.state === "starting") broken = true;
    workers.delete(entry);
    entry.worker?.terminate();
    if (entry.job) {
      clearTimeout(entry.job.timer);
      clearTimeout(entry.job.spare);
      entry.job.reject(error);
    }
    if (!everReady) {
      if (workers.size === 0) firstFailed(error);
      return;
    }
    if (workers.size === 0) for (const job of waiting.splice(0)) job.reject(error);
    else topUp();
  }

  function timedOut(entry) {
    const job = entry.job;
    entry.job = null;
    workers.delete(entry);
    entry.worker.terminate();
    clearTimeout(job.spare);
    job.reject(new CallTimedOut(seconds));
    topUp();
    dispatch();
  }

  const free = () => [...workers].filter((entry) => entry.state !== "busy").length;

  // One worker free (idle, or starting) for the calls to come.
  function topUp() {
    if (broken && workers.size > 0) return;
    if (free() === 0 && workers.size < MOST_WORKERS) start();
  }


  function dispatch() {
    while (waiting.length > 0) {
      const entry = [...workers].find((candidate) => candidate.state === "idle");
      if (entry === undefined) return;
      const job = waiting.shift();
      entry.state = "busy";
      entry.job = job;
      job.timer = setTimeout(() => timedOut(entry), seconds * 1000);
      job.spare = setTimeout(topUp, SPARE_AFTER_MS);
      entry.worker.postMessage({ type: "call", id: job.id, request: job.request });
    }
  }

  start();
  return {
    ready,
    // The model of `python` (a page config's loader, with its wheel's packed bytes) in every worker.
    swap(python, wheel) {
      swapped += 1;
      lastSwap = { python, wheel };
      config.python = python; // the workers made from now on start on it
      replaceWheel(python, wheel);
      return Promise.all([...workers].filter((entry) => entry.worker !== null).map(swapIn));
    },
    call: (request) =>
      new Promise((resolve, reject) => {
        next += 1;
        waiting.push({ id: next, request, resolve, reject });
        dispatch();
      }),
  };
}
