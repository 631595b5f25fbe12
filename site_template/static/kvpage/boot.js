// Stage "boot", the page's entry module: read the page's config, wire the labs, start Python's first
// worker; the labs go live when it is ready (decision 0060; measured: docs/performance.md).

import "./draw.js";
import { CONFIG_ID } from "./contract.js";
import { wireLabs } from "./labs.js";
import { progress, settle } from "./progress.js";
import { PythonPool } from "./python.js";
import { showSources, wireDisclosures } from "./disclosure.js";

/** @type {PageConfig} */
const config = JSON.parse(document.getElementById(CONFIG_ID)?.textContent ?? "null");
const pool = new PythonPool(config);
// The labs are wired at DOMContentLoaded: every lab's own script, deferred or inline after this
// one, has registered by then (a deferred script runs once the document is parsed, but before
// DOMContentLoaded).
/** @type {Promise<import("./lab.js").WiredLab[]>} */
const wired = new Promise((resolve) => {
  const wire = () => resolve(wireLabs(config, pool));
  if (document.readyState === "complete") wire();
  else document.addEventListener("DOMContentLoaded", wire, { once: true });
});
// `build.py serve` after a model edit (sitegen/serve/livereload.js): the new model in every worker, then
// every lab computed again with it, at its current values, and the Python disclosures showing the new
// files (`fresh`: the new build of this page, parsed). Not called in a published page.
/** @param {Loader} python @param {ArrayBuffer} wheel @param {Document} fresh */
globalThis.kvpageLabs.swapModel = async (python, wheel, fresh) => {
  await pool.swap(python, wheel);
  await showSources(fresh);
  for (const lab of await wired) lab.refresh();
};
Promise.all([pool.ready, wired]).then(
  ([, labs]) => {
    settle();
    performance.mark("kvpage:python-started");
    for (const lab of labs) lab.live();
    document.documentElement.dataset.python = "ready";
    performance.mark("kvpage:labs-live");
    progress("ready");
    wireDisclosures(config, pool, labs); // the Python disclosures' buttons: only once the labs are live
  },
  (/** @type {Error} */ error) => {
    settle();
    wired.then((labs) => {
      for (const lab of labs) lab.failed(error);
      document.documentElement.dataset.python = "failed";
      progress("failed");
    });
  },
);
