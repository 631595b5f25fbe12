// Stage "labs": every lab of the page wired from its schema in the page's config (lab.js), the URL's
// fragment kept to their state (url.js) and every fragment the reader follows applied to them (links.js).
// A lab that needs more registers a script of its own: kvpageLabs.register(NAME, {start(section, lab)}),
// run once before Python is live (decision 0060).

import { decodeId, formatFragment, linkKeys, linkNote, parseFragment, quoted, readLab, unknownLabs } from "./links.js";
import { WiredLab } from "./lab.js";
import { showNote } from "./says.js";
import { urlWriter } from "./url.js";

/** @type {Map<string, LabModule>} each lab's own script, by the lab's name */
const labModules = new Map();
/** @type {WeakMap<HTMLElement, LabHandle>} section → its lab's handle, for kvpageLabs.lab(section) */
const labHandles = new WeakMap();

// The page's shared names (their types: globals.d.ts): register(name, module), a lab's own script;
// lab(section), a wired lab's handle (its saved() state and restore(), which a link could carry).
/** @type {KvpageLabs} */
const shared = {
  register: (name, module) => void labModules.set(name, module),
  lab: (section) => labHandles.get(section),
};
globalThis.kvpageLabs = shared;

/** @returns {PerformanceNavigationTiming | undefined} how the page was opened */
const navigation = () => /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"))[0];

/**
 * Every lab of the page (its schema in `config`), wired to the pool's `call`, and the link it was
 * opened with (and every fragment the reader follows later) applied to them.
 * @param {PageConfig} config @param {{call(request: string): Promise<string>}} pool
 */
export function wireLabs(config, pool) {
  const sections = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("section.lab[data-lab]"))].filter(
    (section) => config.labs[section.dataset.lab ?? ""],
  );
  const keys = linkKeys(sections.map((section) => ({ name: section.dataset.lab ?? "", heading: section.getAttribute("aria-labelledby") ?? "" })));
  const isId = (/** @type {string} */ text) => text !== "" && document.getElementById(text) !== null;
  // The URL's fragment: its heading as it was, and every lab that differs from how the page started.
  const address = () => {
    const heading = parseFragment(location.hash, isId).heading;
    const fragment = formatFragment(heading, wired.filter((lab) => lab.changed()).map((lab) => lab.part()));
    return `${location.href.split("#")[0]}${fragment ? `#${fragment}` : ""}`;
  };
  const drawn = urlWriter(address);
  const call = (/** @type {string} */ request) => pool.call(request);
  const wired = sections.map((section, index) => {
    const schema = config.labs[section.dataset.lab ?? ""];
    const lab = new WiredLab(section, schema, call, config.call_timeout, keys[index], drawn, labModules.get(schema.name) ?? {});
    labHandles.set(section, lab.lab);
    return lab.wire();
  });

  /** `hash` applied; `opened`, the page was just loaded with it (a reload or Back keeps where the reader was). */
  function follow(/** @type {string} */ hash, opened = false) {
    const parsed = parseFragment(hash, isId);
    if (parsed.anchor || (parsed.labs.length === 0 && parsed.heading === "")) return drawn();
    const others = unknownLabs(parsed, keys);
    const seen = new Set();
    /** @type {Map<string, [string, string | null][]>} */
    const given = new Map();
    for (const segment of parsed.labs) {
      if (seen.has(segment.key) && keys.includes(segment.key)) others.push(`${quoted(segment.key)} (named twice; the first is kept)`);
      else if (keys.includes(segment.key)) given.set(segment.key, segment.fields);
      seen.add(segment.key);
    }
    /** @type {HTMLElement | null} */
    let first = null;
    wired.forEach((lab, index) => {
      const fields = given.get(lab.key);
      const extra = index === 0 ? others : [];
      if (fields === undefined) {
        if (extra.length > 0) showNote(lab.section, linkNote(extra));
      } else if (lab.follow(readLab(lab.schema, fields), extra)) {
        first ??= lab.section;
      }
    });
    const target = (parsed.heading && document.getElementById(decodeId(parsed.heading))) || first;
    const returning = opened && ["reload", "back_forward"].includes(navigation()?.type ?? "");
    if (!returning) target?.scrollIntoView();
    drawn();
  }
  follow(location.hash, true);
  // The fragment the reader followed, from the event: the page may have rewritten its URL since
  // (write, a timer, can run between the navigation and this event), and would follow itself.
  addEventListener("hashchange", (event) => follow(new URL(event.newURL).hash));
  return wired;
}
