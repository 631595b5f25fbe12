// Stage "links": a lab's state as a part of the page's URL fragment, written and read from its schema,
//   #lab--prefill-once-then-decode&decode:prompt=24,tokens=16,mode=recompute,steps=7
// a fragment that is an element's id being an anchor as always. Pure functions of their arguments:
// tests/sitegen/links_stage.mjs runs this module alone under Node.

import { textLength } from "./contract.js";

/** A setting a link may name: a control, or a linked state (kind "state"). @typedef {ControlSchema | (Omit<NumberSchema, "kind"> & {kind: "state"})} Setting */
/** A lab's segment of a fragment: its key and its fields, [name, raw value or null]. @typedef {{key: string, fields: [string, string | null][]}} Segment */
/** A fragment read. @typedef {{heading: string, labs: Segment[], anchor: boolean}} Fragment */

const NOTE_WORDS = 40; // how much of a name or value a note quotes
const NOTES_SHOWN = 6; // problems a note lists before "and N more"

// `text` percent-encoded, a space as "+"; a lone surrogate (which no URL can hold) as U+FFFD.
/** @param {string} text */
function encodeValue(text) {
  return encodeURIComponent(text.toWellFormed()).replace(/%20/g, "+");
}

// The text of an encoded value, or null if it is not percent-encoded UTF-8.
/** @param {string} text @returns {string | null} */
function decodeValue(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, "%20"));
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    return null; // not percent-encoded UTF-8: the caller says so
  }
}

// An id from its fragment text (percent-encoded, or not).
/** @param {string} text */
export function decodeId(text) {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    return text; // not percent-encoded: the id as it is written
  }
}

// `text` shortened for a note, its line breaks shown as spaces.
/** @param {unknown} text */
export function quoted(text) {
  const flat = String(text).replace(/\s+/g, " ");
  return flat.length > NOTE_WORDS ? `${flat.slice(0, NOTE_WORDS)}…` : flat;
}

// What each lab on a page is called in a link, in page order: [{name, heading}] → ["decode", …].
/** @param {{name: string, heading: string}[]} labs */
export function linkKeys(labs) {
  /** @type {Map<string, number>} */
  const count = new Map();
  for (const lab of labs) count.set(lab.name, (count.get(lab.name) ?? 0) + 1);
  return labs.map((lab) => (count.get(lab.name) === 1 ? lab.name : lab.heading));
}

// The settings a link may name, in the order it writes them: the controls, then the linked state.
/** @param {LabSchema} schema @returns {Setting[]} */
function linkSettings(schema) {
  return [...schema.controls, ...schema.linked_state.map((state) => ({ ...state, kind: /** @type {const} */ ("state") }))];
}

/** @param {Setting} setting @param {unknown} value */
function formatValue(setting, value) {
  if (setting.kind === "checkbox") return value ? "on" : "off";
  return encodeValue(String(value));
}

// One lab's segment: every control's value and every linked state's, by name.
/**
 * @param {string} key @param {LabSchema} schema @param {Record<string, ControlValue>} controls
 * @param {Record<string, unknown> | undefined} state
 */
export function formatLab(key, schema, controls, state) {
  const fields = linkSettings(schema).map((setting) => {
    const value = setting.kind === "state" ? state?.[setting.name] : controls[setting.name];
    return value === undefined ? null : `${setting.name}=${formatValue(setting, value)}`;
  });
  return `${encodeValue(key)}:${fields.filter((field) => field !== null).join(",")}`;
}

// A fragment (without "#") from the heading segment as it was (raw, or "") and the labs' segments.
/** @param {string} heading @param {string[]} labs */
export function formatFragment(heading, labs) {
  return [heading, ...labs].filter((segment) => segment !== "").join("&");
}

// A fragment (location.hash) as {heading, labs: [{key, fields: [[name, raw value]]}], anchor}:
// `heading` is its heading segment as written ("" for none), `anchor` whether the whole fragment
// is an element's id (`isId(text)` says), which is then all it is.
/** @param {string} hash @param {(text: string) => boolean} isId @returns {Fragment} */
export function parseFragment(hash, isId) {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash;
  /** @type {Fragment} */
  const found = { heading: "", labs: [], anchor: false };
  if (raw === "") return found;
  if (isId(decodeId(raw))) return { ...found, heading: raw, anchor: true };
  for (const segment of raw.split("&")) {
    const colon = segment.indexOf(":");
    if (colon < 0) {
      if (found.heading === "" && segment !== "") found.heading = segment;
      continue;
    }
    const fields = segment
      .slice(colon + 1)
      .split(",")
      .filter((field) => field !== "")
      .map((field) => {
        const equals = field.indexOf("=");
        /** @type {[string, string | null]} */
        const pair = equals < 0 ? [field, null] : [field.slice(0, equals), field.slice(equals + 1)];
        return pair;
      });
    found.labs.push({ key: decodeValue(segment.slice(0, colon)) ?? segment.slice(0, colon), fields });
  }
  return found;
}

// A number the link gives outside its setting's range, worded as the model words it
// (kvpage.lab.out_of_range): the range's words are the build's, from the declaration (`range`).
/** @param {{label: string, range: string}} setting @param {string} text */
function outOfRange(setting, text) {
  return `${setting.label} must be ${setting.range}, not ${text}`;
}

// One setting's value from its text, or {problem} saying why it is not one.
/** @param {Setting} setting @param {string} text @returns {{value: ControlValue} | {problem: string}} */
function readValue(setting, text) {
  if ("step" in setting) {
    // A decimal slider (kvpage.lab.DecimalSlider): low plus whole steps, within its range.
    const value = /^-?[0-9]{1,16}(\.[0-9]{1,16})?$/.test(text) ? Number(text) : NaN;
    const steps = (value - setting.low) / setting.step;
    if (!(value >= setting.low && value <= setting.high) || Math.abs(steps - Math.round(steps)) > 1e-9) {
      return { problem: outOfRange(setting, text) };
    }
    return { value: Number(value.toFixed(setting.places)) };
  }
  if (setting.kind === "slider" || setting.kind === "number" || setting.kind === "state") {
    const value = /^-?[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
    if (!(value >= setting.low && value <= setting.high)) return { problem: outOfRange(setting, text) };
    return { value };
  }
  if (setting.kind === "choice") {
    const option = setting.options.find((candidate) => candidate.value === text);
    if (!option) return { problem: `${setting.label} is one of ${setting.options.map((o) => o.value).join(", ")}` };
    return { value: option.value };
  }
  if (setting.kind === "checkbox") {
    const value = /** @type {Record<string, boolean>} */ ({ on: true, true: true, off: false, false: false })[text];
    return value === undefined ? { problem: `${setting.label} is on or off` } : { value };
  }
  if (setting.kind === "text" && textLength(text) > setting.limit) {
    // Worded as the model words it (kvpage.lab.too_long).
    const count = (/** @type {number} */ n) => n.toLocaleString("en");
    return { problem: `${setting.label} is ${count(textLength(text))} characters; the lab takes at most ${count(setting.limit)}` };
  }
  return { value: text };
}

// A lab's segment read against its schema: {controls, state, problems}. A field that names no
// setting, does not fit its setting or names one already read is left out, with a problem saying why.
/**
 * @param {LabSchema} schema @param {[string, string | null][]} fields
 * @returns {{controls: Record<string, ControlValue>, state: Record<string, unknown>, problems: string[]}}
 */
export function readLab(schema, fields) {
  const settings = new Map(linkSettings(schema).map((setting) => [setting.name, setting]));
  /** @type {{controls: Record<string, ControlValue>, state: Record<string, unknown>, problems: string[]}} */
  const read = { controls: {}, state: {}, problems: [] };
  const seen = new Set();
  for (const [rawName, rawValue] of fields) {
    const name = decodeValue(rawName) ?? rawName;
    const setting = settings.get(name);
    const text = rawValue === null ? null : decodeValue(rawValue);
    let problem = null;
    if (setting === undefined) problem = `${quoted(name)} (this lab has no such setting)`;
    else if (seen.has(name)) problem = `${name} (given twice; the first is kept)`;
    else if (text === null) problem = `${name} (${rawValue === null ? "no value" : "not readable text"})`;
    else {
      const value = readValue(setting, text);
      if ("problem" in value) problem = `${name}=${quoted(text)} (${value.problem})`;
      else {
        (setting.kind === "state" ? read.state : read.controls)[name] = value.value;
        seen.add(name);
      }
    }
    if (problem !== null) read.problems.push(problem);
  }
  return read;
}

// The quiet note a lab shows for a link's problems ("" for none).
/** @param {string[]} problems */
export function linkNote(problems) {
  if (problems.length === 0) return "";
  const shown = problems.slice(0, NOTES_SHOWN).join("; ");
  const more = problems.length > NOTES_SHOWN ? `; and ${problems.length - NOTES_SHOWN} more` : "";
  return `From this page's link, ignored: ${shown}${more}.`;
}

// Each lab segment's key that names none of `keys`, quoted for a note.
/** @param {Fragment} parsed @param {string[]} keys */
export function unknownLabs(parsed, keys) {
  return parsed.labs.filter((lab) => !keys.includes(lab.key)).map((lab) => `${quoted(lab.key)} (no such lab on this page)`);
}
