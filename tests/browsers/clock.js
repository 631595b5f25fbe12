// The page's clock for Firefox and WebKit, as Playwright's page.clock is Chromium's (tests/e2e/test_labs.py,
// live_clock and stop_the_clock), for the page's setTimeout. Installed on the live page, it runs as usual
// until the test pauses it (from then on its timers fire only when it is moved) or moves it on: each
// timer set since it was installed that falls due within the move fires at once, in order, and every
// later one comes that much sooner. A call's time limit is such a timer (python.js), the only thing
// that stops a call: the test waits on the page's own signal that the call is out, moves the clock by
// the book's call_timeout, and the page stops the call as it would for a reader, only sooner. Only the
// timers move (the page reads no clock to decide that a call is over); Python's worker, a global of
// its own, keeps real time. A function expression: flows.py runs it in the page, once.
() => {
  const key = Symbol.for("kvpage.clock");
  if (window[key]) return true;
  const [set, clear] = [window.setTimeout.bind(window), window.clearTimeout.bind(window)];
  const timers = new Map(); // id -> {due, run, real}: the timers set through the clock, until they fire
  let next = 1e9; // its ids, apart from the browser's own (setInterval's, which clearTimeout also takes)
  let moved = 0; // ms the clock has been moved on
  let pausedAt = null; // performance.now() when it was paused, or null: it runs
  const now = () => (pausedAt ?? performance.now()) + moved;
  const fire = (id, timer) => {
    timers.delete(id);
    try {
      timer.run();
    } catch (error) {
      set(() => {
        throw error; // an uncaught error of the page's, as the timer's own would be
      });
    }
  };
  const arm = (id, timer) => {
    clear(timer.real);
    if (pausedAt === null) timer.real = set(() => fire(id, timer), Math.max(timer.due - now(), 0));
  };
  window.setTimeout = function (handler, delay = 0, ...args) {
    if (typeof handler !== "function") return set(handler, delay, ...args);
    next += 1;
    const timer = { due: now() + Math.max(Number(delay) || 0, 0), run: () => handler.apply(window, args), real: 0 };
    timers.set(next, timer);
    arm(next, timer);
    return next;
  };
  window.clearTimeout = function (id) {
    const timer = timers.get(id);
    if (timer === undefined) return clear(id);
    clear(timer.real);
    timers.delete(id);
  };
  window[key] = {
    // From now on the page's timers fire only when the clock is moved (a Run's limit then waits for the test).
    pause() {
      pausedAt = performance.now();
      for (const [id, timer] of timers) arm(id, timer);
      return true;
    },
    // The clock `ms` on: each timer due by then fires now, in order, before this returns; the others
    // come that much sooner. Returns how many fired.
    forward(ms) {
      moved += ms;
      let fired = 0;
      while (fired < 1000) { // a timer that sets itself again at once would keep a clock moved ever on
        const due = [...timers].filter(([, timer]) => timer.due <= now()).sort(([, a], [, b]) => a.due - b.due)[0];
        if (due === undefined) break;
        clear(due[1].real);
        fire(...due);
        fired += 1;
      }
      for (const [id, timer] of timers) arm(id, timer);
      return fired;
    },
    resume() {
      moved += (pausedAt ?? performance.now()) - performance.now();
      pausedAt = null;
      for (const [id, timer] of timers) arm(id, timer);
      return true;
    },
  };
  return true;
}
