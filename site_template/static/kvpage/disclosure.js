// Stage "disclosure": each lab's "Python" disclosure until the reader presses Edit: once the labs
// are live its buttons show, and the first Edit loads the editor, a script of its own so nothing only it
// needs is downloaded before (decision 0033); under `serve` the files a model edit changed are shown.

import { READER_ID } from "./contract.js";

/** @typedef {{editing(details: HTMLElement): void, showSources(fresh: Map<string, HTMLElement>): void}} Editor */
/** @typedef {import("./reader.js").WireReader} WireReader */

/** @type {Promise<Editor> | null} */
let editor = null;

// The editor's script run: from the single file's data block, or loaded from `config.reader`.
/** @param {PageConfig} config @returns {Promise<WireReader>} */
function runEditor(config) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    const ran = () => {
      const wire = globalThis.kvpageLabs.wireReader;
      if (typeof wire === "function") resolve(wire);
      else reject(new Error("the editor's script did not run"));
    };
    if (config.inline) {
      script.textContent = document.getElementById(READER_ID)?.textContent ?? "";
      document.head.append(script); // an inline script runs as it is inserted
      ran();
    } else {
      script.src = config.reader;
      script.onload = ran;
      script.onerror = () => reject(new Error(`could not load ${config.reader}`));
      document.head.append(script);
    }
  });
}

// The editor, wired to the page's Python and labs, once: loaded on the first call.
/** @param {PageConfig} config @param {import("./python.js").PythonPool} pool @param {import("./lab.js").WiredLab[]} labs */
function load(config, pool, labs) {
  editor ??= runEditor(config).then((wire) => wire(pool, labs, config.call_timeout));
  editor.catch(() => (editor = null)); // the Edit that asked says why; the next Edit tries again
  return editor;
}

/**
 * The disclosures' buttons shown, and Edit wired to load the editor (once the labs are live).
 * @param {PageConfig} config the page's config
 * @param {import("./python.js").PythonPool} pool
 * @param {import("./lab.js").WiredLab[]} labs the page's wired labs
 */
export function wireDisclosures(config, pool, labs) {
  for (const details of document.querySelectorAll("details[data-role=python]")) {
    const problem = /** @type {HTMLElement} */ (details.querySelector("[data-role=problem]"));
    details.querySelector("[data-role=edit]")?.addEventListener("click", () => {
      load(config, pool, labs).then(
        (reader) => reader.editing(/** @type {HTMLElement} */ (details)),
        (error) => {
          problem.textContent = `The editor could not start: ${error.message}.`;
          problem.hidden = false;
        },
      );
    });
    /** @type {HTMLElement} */ (details.querySelector("[data-role=tools]")).hidden = false;
  }
}

/**
 * The files of every disclosure as `fresh` (a newer build of this page, parsed) prints them.
 * @param {Document} fresh
 */
export async function showSources(fresh) {
  /** @type {Map<string, HTMLElement>} path -> the new build's highlighted code of that file */
  const code = new Map();
  for (const figure of fresh.querySelectorAll("details[data-role=python] figure[data-file]")) {
    const pre = /** @type {HTMLElement | null} */ (figure.querySelector("pre.code"));
    if (pre) code.set(/** @type {HTMLElement} */ (figure).dataset.file ?? "", pre);
  }
  if (editor !== null) return (await editor).showSources(code);
  for (const figure of document.querySelectorAll("details[data-role=python] figure[data-file]")) {
    const pre = code.get(/** @type {HTMLElement} */ (figure).dataset.file ?? "");
    if (pre) figure.querySelector("pre.code")?.replaceWith(document.importNode(pre, true));
  }
}
