// Stage "controls": a lab's controls on the page, read and set as the schema's kinds say (numbers for
// sliders and number boxes, on or off for a checkbox, the checked option of a choice, a text box's
// text). The templates printed them from the same schema (decision 0060).

import { textLength } from "./contract.js";

/** The elements of `control` in `section` (several for a choice's radio buttons). @param {HTMLElement} section @param {ControlSchema} control */
export const controlsOf = (section, control) => [
  .../** @type {NodeListOf<HTMLInputElement | HTMLTextAreaElement>} */ (section.querySelectorAll(`[data-control="${control.name}"]`)),
];

/** Is the element a checkbox or radio button (checked, not a value)? @param {HTMLInputElement | HTMLTextAreaElement} element @returns {element is HTMLInputElement} */
const checkable = (element) => element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio");

/** Every control's value, by name. @param {HTMLElement} section @param {LabSchema} schema */
export function values(section, schema) {
  /** @type {Record<string, ControlValue>} */
  const found = {};
  for (const control of schema.controls) {
    const elements = controlsOf(section, control);
    const first = elements[0];
    if (control.kind === "choice") {
      const value = elements.find((element) => checkable(element) && element.checked)?.value;
      if (value !== undefined) found[control.name] = value;
    } else if (control.kind === "checkbox") found[control.name] = checkable(first) && first.checked;
    else if (control.kind === "slider" || control.kind === "number") found[control.name] = Number(first.value);
    else found[control.name] = first.value;
  }
  return found;
}

/**
 * A slider's value in the readout beside it ([data-shows=ID]), if it has one, to a decimal slider's
 * places ([data-places]: 1.10 for a step of 0.05, as the build printed it).
 * @param {HTMLElement} section @param {HTMLInputElement | HTMLTextAreaElement} element
 */
export function showValue(section, element) {
  const readout = element.id ? /** @type {HTMLElement | null} */ (section.querySelector(`[data-shows="${element.id}"]`)) : null;
  if (!readout) return;
  const places = Number(readout.dataset.places || 0);
  readout.textContent = places ? Number(element.value).toFixed(places) : element.value;
}

/** The controls `given` names set to its values. @param {HTMLElement} section @param {LabSchema} schema @param {Record<string, ControlValue>} given */
export function setValues(section, schema, given) {
  for (const control of schema.controls) {
    if (!(control.name in given)) continue;
    const value = given[control.name];
    for (const element of controlsOf(section, control)) {
      if (control.kind === "choice" && checkable(element)) element.checked = element.value === value;
      else if (control.kind === "checkbox" && checkable(element)) element.checked = Boolean(value);
      else element.value = String(value);
      showValue(section, element);
    }
  }
}

/**
 * The controls as the build printed them: a browser may have put back what the reader had typed
 * before a reload, which the view on the page (the build's) does not show.
 * @param {HTMLElement} section @param {LabSchema} schema
 */
export function resetControls(section, schema) {
  for (const control of schema.controls) {
    for (const element of controlsOf(section, control)) {
      if (checkable(element)) element.checked = element.defaultChecked;
      else element.value = element.defaultValue;
      showValue(section, element);
    }
  }
}

/**
 * A text box the model refused for its length (the error line says so) is aria-invalid until an
 * answer takes it; the limit is the schema's, counted as the model counts.
 * @param {HTMLElement} section @param {LabSchema} schema @param {boolean} ok
 */
export function markInvalid(section, schema, ok) {
  for (const control of schema.controls) {
    if (control.kind !== "text") continue;
    for (const element of controlsOf(section, control)) {
      element.setAttribute("aria-invalid", String(!ok && textLength(element.value) > control.limit));
    }
  }
}
