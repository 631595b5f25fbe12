// Stage "draw": a lab's element trees (kvpage/tree.py) built as DOM with createElementNS and
// textContent, never innerHTML, refusing what kvpage.tree refuses (TREE, generated from it), so the DOM
// built here is the DOM the browser parsed from the build's HTML (tests/e2e/test_trees.py); and the
// loading bars.

import { TREE } from "./contract.js";

const SVG = "http://www.w3.org/2000/svg";
const TREE_TAGS = new Set([...TREE.svg, ...TREE.html]);
const SVG_TAGS = new Set(TREE.svg);
const VOID_TAGS = new Set(TREE.void);
const ATTRIBUTE = new RegExp(`^(?:${TREE.attribute})$`);

/** @param {string} text */
function treeError(text) {
  return new Error(`not a drawing the page can show: ${text}`);
}

/** @param {string} name */
function allowedAttribute(name) {
  const lower = name.toLowerCase();
  return ATTRIBUTE.test(name) && !lower.startsWith("on") && !TREE.forbidden.includes(lower);
}

/** @param {unknown} node @param {boolean} inSvg @returns {Node} */
function buildNode(node, inSvg) {
  if (typeof node === "string") return document.createTextNode(node);
  if (!Array.isArray(node) || typeof node[0] !== "string" || node[1] === null || typeof node[1] !== "object") {
    throw treeError("a node is a text or [tag, {attributes}, ...children]");
  }
  const [tag, attributes, ...children] = node;
  if (!TREE_TAGS.has(tag)) throw treeError(`element ${JSON.stringify(tag)}`);
  if (inSvg && !SVG_TAGS.has(tag)) throw treeError(`element ${tag} inside an svg`);
  if (!inSvg && SVG_TAGS.has(tag) && tag !== "svg") throw treeError(`element ${tag} outside an svg`);
  const svg = inSvg || tag === "svg";
  const element = svg ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (!allowedAttribute(name)) throw treeError(`attribute ${JSON.stringify(name)}`);
    if (typeof value !== "string") throw treeError(`attribute ${name} is not text`);
    element.setAttribute(name, value);
  }
  if (VOID_TAGS.has(tag) && children.length > 0) throw treeError(`element ${tag} has no children`);
  for (const child of children) element.append(buildNode(child, svg));
  return element;
}

// Replaces what `container` holds with the trees `nodes`; throws (and changes nothing) if one is not a tree.
/** @param {Element} container @param {unknown} nodes */
export function renderTree(container, nodes) {
  if (!Array.isArray(nodes)) throw treeError("a part is a list of nodes");
  const built = nodes.map((node) => buildNode(node, false));
  container.replaceChildren(...built);
}
globalThis.kvpageDraw = { renderTree };

// ---- Loading progress ----------------------------------------------------------
// boot dispatches `kvpage:progress` on document with detail {phase: "downloading" | "starting" |
// "ready" | "failed", loaded?: bytes, total?: bytes}; the bars show bytes when both are known and
// are indeterminate otherwise. CSS hides them once <html data-python> is set (ready or failed).

// Shown only where this script runs: without JavaScript nothing is loading.
const bars = () => /** @type {NodeListOf<HTMLProgressElement>} */ (document.querySelectorAll("[data-role=loading]"));
for (const bar of bars()) bar.hidden = false;
document.addEventListener("kvpage:progress", (event) => {
  const { phase, loaded, total } = /** @type {CustomEvent} */ (event).detail ?? {};
  for (const bar of bars()) {
    if (phase) bar.dataset.phase = phase;
    if (typeof loaded === "number" && typeof total === "number" && Number.isFinite(loaded) && Number.isFinite(total) && total > 0) {
      bar.max = total;
      bar.value = Math.min(loaded, total);
    } else {
      bar.removeAttribute("value");
    }
  }
});
