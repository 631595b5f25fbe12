// Injected by bench/search.py into every page it opens, before the page's own scripts run.
//
// Times each keystroke in the search box the way a reader feels it: from the trusted key event
// to the moment the search box's results and status have changed in the DOM and layout is done
// (a MutationObserver on the box; its callback runs right after the task that changed it, so the
// time holds the search, building the results and laying them out). While the index is still
// loading the box only says so; that keystroke's sample ends when its results are shown. Each
// sample also says how long after the box was focused it ended (the page loads the index then).
"use strict";

(() => {
  const samples = [];
  const waiting = []; // [count, resolve]
  let pending = null; // {start, key}
  let focused = null;
  globalThis.__searchBench = {
    samples,
    until: (count) => new Promise((resolve) => (samples.length >= count ? resolve() : waiting.push([count, resolve]))),
  };

  addEventListener(
    "focusin",
    (event) => {
      if (event.target.closest?.(".site-search")) focused = event.timeStamp;
    },
    { capture: true },
  );
  addEventListener(
    "keydown",
    (event) => {
      if (event.isTrusted && event.target.closest?.(".site-search")) pending = { start: event.timeStamp, key: event.key };
    },
    { capture: true },
  );

  const observer = new MutationObserver(() => {
    if (pending === null) return;
    const status = document.querySelector(".site-search [role=status]").textContent;
    if (status.startsWith("Loading")) return;
    document.documentElement.getBoundingClientRect(); // style and layout, as the next frame needs
    const now = performance.now();
    samples.push({ ms: now - pending.start, since_focus: now - focused, key: pending.key, status });
    pending = null;
    for (const entry of waiting.filter(([count]) => samples.length >= count)) {
      waiting.splice(waiting.indexOf(entry), 1);
      entry[1]();
    }
  });
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.querySelector(".site-search");
    if (box) observer.observe(box, { subtree: true, childList: true, characterData: true, attributes: true });
  });
})();
