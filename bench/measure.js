// Injected into every page the bench opens, before the page's own scripts run.
//
// It times lab interactions the way a reader feels them: from the trusted input event (the key
// press or the click) to the moment the lab's outputs have changed in the DOM and layout is done.
// A MutationObserver on the labs sees the change; its callback runs right after the task that
// made it, so the time includes the Python call and the DOM work, and any delay the lab adds on
// purpose (a debounce). "work" is the same end time measured from when that delayed task began.
"use strict";

(() => {
  const samples = [];
  const waiting = []; // [count, resolve]
  let pending = null; // {start, work}
  globalThis.__bench = {
    samples,
    // Resolves once `count` samples exist (the bench cannot use wait_for_function under the page's CSP).
    until: (count) => new Promise((resolve) => (samples.length >= count ? resolve() : waiting.push([count, resolve]))),
    python: () =>
      new Promise((resolve) => {
        const done = () => ["ready", "failed"].includes(document.documentElement.dataset.python);
        if (done()) return resolve();
        new MutationObserver((_, observer) => done() && (observer.disconnect(), resolve())).observe(
          document.documentElement,
          { attributes: true, attributeFilter: ["data-python"] },
        );
      }),
  };

  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = function (callback, delay, ...rest) {
    if (typeof callback !== "function" || pending === null) return realSetTimeout.call(this, callback, delay, ...rest);
    const owner = pending;
    return realSetTimeout.call(
      this,
      (...args) => {
        if (owner === pending) owner.work = performance.now();
        return callback(...args);
      },
      delay,
      ...rest,
    );
  };

  for (const type of ["keydown", "mousedown"]) {
    addEventListener(
      type,
      (event) => {
        if (event.isTrusted && event.target.closest?.("section.lab")) {
          pending = { start: event.timeStamp, work: event.timeStamp };
        }
      },
      { capture: true },
    );
  }

  const observer = new MutationObserver(() => {
    if (pending === null) return;
    document.documentElement.getBoundingClientRect(); // style and layout, as the next frame needs
    const end = performance.now();
    samples.push({ latency: end - pending.start, work: end - pending.work });
    pending = null;
    for (const entry of waiting.filter(([count]) => samples.length >= count)) {
      waiting.splice(waiting.indexOf(entry), 1);
      entry[1]();
    }
  });
  document.addEventListener("DOMContentLoaded", () => {
    for (const section of document.querySelectorAll("section.lab")) {
      observer.observe(section, { subtree: true, childList: true, characterData: true });
    }
  });
})();
