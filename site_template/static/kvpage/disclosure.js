// Stage "disclosure": each lab's "Python" disclosure (site_template/labs/python.html) until the
// reader presses Edit. The build printed the model's files, highlighted; they read without this
// script. Once the labs are live, each disclosure shows its buttons, and the first Edit of the page
// loads the editor (stage "reader", reader.js and reader.py), which is a script of its own so that
// nothing only the editor needs is downloaded or parsed before the labs are live (sitegen/
// page_script.py): from the page's config's `reader`, a classic <script src> (over http and from
// file://), or in the single file the text of the data block READER_ID, run as an inline script the
// page's policy allows by its hash (no Blob, no eval). Every Edit of the page goes through here.
//
// Under `build.py serve` a model edit swaps the new model into the page (stage "boot"), and here
// the disclosures show its files (showSources): the highlighted code of the new build's page. An
// editor the reader opened keeps the reader's text (their edit is theirs; its "Your model" count is
// then against the new book's file); one they left as the book had it shows the new book's.

import { READER_ID } from "./contract.js";

/** @typedef {{editing(details: HTMLElement): void, showSources(fresh: Map<string, HTMLElement>): void}} Editor */

/** @type {Promise<Editor> | null} */
let editor = null;

// The editor's script run: from the single file's data block, or loaded from `config.reader`.
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
function load(config, pool, labs) {
  editor ??= runEditor(config).then((wire) => wire(pool, labs, config.call_timeout));
  editor.catch(() => (editor = null)); // the next Edit tries again
  return editor;
}

/**
 * The disclosures' buttons shown, and Edit wired to load the editor (once the labs are live).
 * @param {any} config the page's config
 * @param {import("./python.js").PythonPool} pool
 * @param {any[]} labs the page's wired labs
 */
export function wireDisclosures(config, pool, labs) {
  for (const details of document.querySelectorAll("details[data-role=python]")) {
    const problem = /** @type {HTMLElement} */ (details.querySelector("[data-role=problem]"));
    details.querySelector("[data-role=edit]").addEventListener("click", () => {
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
    code.set(/** @type {HTMLElement} */ (figure).dataset.file, figure.querySelector("pre.code"));
  }
  if (editor !== null) return (await editor).showSources(code);
  for (const figure of document.querySelectorAll("details[data-role=python] figure[data-file]")) {
    const pre = code.get(/** @type {HTMLElement} */ (figure).dataset.file);
    if (pre) figure.querySelector("pre.code").replaceWith(document.importNode(pre, true));
  }
}
