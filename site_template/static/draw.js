// kvpage drawing kit: the small helpers every lab's own script draws with, and the loading bars.
//
// A lab that draws (static/labs/NAME.js) turns the view computed by Python into SVG and text
// with these; nothing is computed here but positions on screen, and reader text only ever
// reaches the page through textContent or attributes. Loaded first of the page's scripts.
"use strict";

(() => {
  const SVG = "http://www.w3.org/2000/svg";

  function svgElement(name, attributes = {}, text = undefined) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    if (text !== undefined) element.textContent = text;
    return element;
  }

  // Strokes keep their width however far a picture is scaled. An SVG attribute, not CSS:
  // the HTML checker's CSS validator does not know the property, and the attribute is plain SVG.
  const THIN = { "vector-effect": "non-scaling-stroke" };

  function picture(viewBox, className) {
    return svgElement("svg", { viewBox, class: className, focusable: "false", "aria-hidden": "true" });
  }

  function htmlElement(name, className, text = undefined) {
    const element = document.createElement(name);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function setText(section, name, text) {
    for (const element of section.querySelectorAll(`[data-text="${name}"]`)) element.textContent = text;
  }

  // ---- Loading progress ----------------------------------------------------------
  // The loader may dispatch `kvpage:progress` on document with
  // detail {phase: "downloading" | "starting" | "ready" | "failed", loaded?: bytes, total?: bytes};
  // the bars show bytes when both are known and are indeterminate otherwise.
  // CSS hides them once <html data-python> is set (ready or failed).

  // Shown only where this script runs: without JavaScript nothing is loading.
  for (const bar of document.querySelectorAll("[data-role=loading]")) bar.hidden = false;
  document.addEventListener("kvpage:progress", (event) => {
    const { phase, loaded, total } = event.detail ?? {};
    for (const bar of document.querySelectorAll("[data-role=loading]")) {
      if (phase) bar.dataset.phase = phase;
      if (Number.isFinite(loaded) && Number.isFinite(total) && total > 0) {
        bar.max = total;
        bar.value = Math.min(loaded, total);
      } else {
        bar.removeAttribute("value");
      }
    }
  });

  globalThis.kvpageDraw = { THIN, svgElement, picture, htmlElement, setText };
})();
