// Stage "says": what a lab says in words: its runtime line, its note (a link's problems) and its error;
// and setText, which rewrites a text only if it changed (decision 0060).

/**
 * `element`'s text set to `text` only if it differs: a live region rewritten with the same words is
 * announced again by some screen readers.
 * @param {Element | null} element @param {string} text
 */
export function setText(element, text) {
  if (element !== null && element.textContent !== text) element.textContent = text;
}

/** The lab's note (a link's problems), `text`, or none. @param {HTMLElement} section @param {string} text */
export function showNote(section, text) {
  const note = /** @type {HTMLElement} */ (section.querySelector("[data-role=note]"));
  note.textContent = text;
  note.hidden = !text;
}

/** Each runtime line of the lab says `text`. @param {HTMLElement} section @param {string} text */
export function sayIn(section, text) {
  for (const line of section.querySelectorAll("[data-role=runtime]")) setText(line, text);
}

const KEPT = "the lab keeps your values.";

/**
 * The lab's error line says `message` (none if ""); a model's traceback goes to the console. `kept`:
 * a failure of the model, after which the line says that the reader's values are kept (issue 46).
 * @param {HTMLElement} section @param {string} message @param {string} [traceback] @param {boolean} [kept]
 */
export function showError(section, message, traceback, kept = false) {
  const box = /** @type {HTMLElement} */ (section.querySelector("[data-role=error]"));
  setText(box, kept ? `${message}; ${KEPT}` : message);
  box.hidden = !message;
  if (traceback) console.error(`kvpage lab ${section.dataset.lab}: ${message}\n${traceback}`);
}
