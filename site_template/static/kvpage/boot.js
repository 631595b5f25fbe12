// Stage "boot": read the page's config, wire the labs, start Python's first worker; the labs go
// live when it is ready. Progress goes to `document` as "kvpage:progress" events, {phase:
// "downloading" | "starting" | "ready" | "failed", loaded, total} in bytes (of what the first
// worker waits for), and to say(). Measured: docs/performance.md.

// What every loader (this one, or bench's stock one) reports through: the page's runtime line
// and the "kvpage:progress" events. Once the labs are live or have failed, each lab's line is its
// own (labs.js): a download still arriving for a later worker must not write over it.
let settled = false;
function say(text) {
  if (settled) return;
  for (const line of document.querySelectorAll("[data-role=runtime]")) line.textContent = text;
}

let lastProgress = { loaded: 0, total: 0 };
function progress(phase, loaded = lastProgress.loaded, total = lastProgress.total) {
  lastProgress = { loaded, total };
  document.dispatchEvent(new CustomEvent("kvpage:progress", { detail: { phase, loaded, total } }));
}

const config = JSON.parse(document.getElementById(CONFIG_ID).textContent);
const pool = new PythonPool(config);
// The labs are wired at DOMContentLoaded: every lab's own script, deferred or inline after this
// one, has registered by then (a deferred script runs once the document is parsed, but before
// DOMContentLoaded).
const wired = new Promise((resolve) => {
  const wire = () => resolve(wireLabs(config, pool));
  if (document.readyState === "complete") wire();
  else document.addEventListener("DOMContentLoaded", wire, { once: true });
});
// `build.py serve` after a model edit (sitegen/livereload.js): the new model in every worker, then
// every lab computed again with it, at its current values. Not called in a published page.
globalThis.kvpageLabs.swapModel = async (python, wheel) => {
  await pool.swap(python, wheel);
  for (const lab of await wired) lab.refresh();
};
Promise.all([pool.ready, wired]).then(
  ([, labs]) => {
    settled = true;
    performance.mark("kvpage:python-started");
    for (const lab of labs) lab.live();
    document.documentElement.dataset.python = "ready";
    performance.mark("kvpage:labs-live");
    progress("ready");
  },
  (error) => {
    settled = true;
    wired.then((labs) => {
      for (const lab of labs) lab.failed(error);
      document.documentElement.dataset.python = "failed";
      progress("failed");
    });
  },
);
