// kvpage search: the header's search box, a WAI-ARIA combobox with list autocomplete over the index
// that sitegen/search/index.py builds (MiniSearch, a classic script loaded on first use, so it works
// from file:// and inline in the single file; decision 0046). No Python, no network; a query is only
// ever text: results are built with createElement and textContent.
"use strict";

// Long because: this wrapper is the script's own scope, which keeps its names off the page's
// globals; each function in it is held to 60 lines.
(() => {
  const box = /** @type {HTMLElement | null} */ (document.querySelector(".site-search"));
  if (!box) return;
  const input = /** @type {HTMLInputElement} */ (box.querySelector("input"));
  const popup = /** @type {HTMLElement} */ (box.querySelector(".search-popup"));
  const list = /** @type {HTMLElement} */ (box.querySelector("[role=listbox]"));
  const status = /** @type {HTMLElement} */ (box.querySelector("[role=status]"));
  const index = box.dataset.index ?? "";

  const SHOWN = 10; // results listed
  const LONGEST = 200; // characters of the query searched; the rest is said to be left out
  const QUOTED = 60; // characters of the query quoted back in "no results"
  const AROUND = 70; // characters of a snippet before the first match (about), and twice that after

  /**
   * A section found (sitegen/search/index.py): its chapter's number, anchor, heading and text, and the
   * terms it matched; a chapter's page, anchor prefix, headline and title; the index's word splitter.
   * @typedef {{c: number, a?: string, h: string, t: string, terms: string[]}} Result
   * @typedef {{page: string, anchor: string, headline: string, title: string}} Chapter
   * @typedef {{options: unknown, words(text: string): {word: string, at: number}[], term(word: string): string}} Terms
   * @typedef {{index: {search(query: string, options: object): Result[]}, chapters: Chapter[], terms: Terms}} Engine
   */
  /** @type {Engine | null} */
  let engine = null;
  /** @type {Promise<void> | null} */
  let loading = null;
  /** @type {Result[]} */
  let results = [];
  let active = -1;

  // ---- the index -----------------------------------------------------------------------------------

  function loadIndex() {
    if (!loading) {
      loading = new Promise((/** @type {(value?: undefined) => void} */ resolve, reject) => {
        if (globalThis.kvpageSearchData) return resolve();
        const script = document.createElement("script");
        script.src = index;
        script.onload = () => resolve();
        script.onerror = () => reject(new Error(`could not load ${index}`));
        document.head.append(script);
      }).then(() => {
        const data = globalThis.kvpageSearchData;
        const terms = globalThis.kvpageSearchTerms;
        engine = { index: MiniSearch.loadJS(data.index, terms.options), chapters: data.chapters, terms };
      });
      loading.catch((error) => {
        status.textContent = "Search could not load its index.";
        console.warn("kvpage search:", error);
      });
    }
    return loading;
  }

  /** loadIndex's failure is said in the status line, by loadIndex: nothing more where it is awaited. */
  const saidInStatus = () => undefined;

  // ---- searching -----------------------------------------------------------------------------------

  /** @param {Engine} loaded @param {string} query */
  function search(loaded, query) {
    const typing = /[\p{L}\p{N}\p{M}]$/u.test(query); // the last word may be unfinished
    return loaded.index.search(query, {
      combineWith: "AND",
      prefix: (/** @type {string} */ term, /** @type {number} */ i, /** @type {string[]} */ all) => typing && i === all.length - 1 && term.length >= 2,
      fuzzy: (/** @type {string} */ term) => (term.length >= 5 ? 0.2 : false),
      maxFuzzy: 2,
      boost: { h: 2 },
    });
  }

  /** @param {Engine} loaded @param {Result} result */
  function hrefOf(loaded, result) {
    const chapter = loaded.chapters[result.c];
    return result.a ? chapter.anchor + result.a : chapter.page;
  }

  // Text with every word whose term the result matched in <mark>, from `start` to `end`.
  /** @param {Engine} loaded @param {string} text @param {Set<string>} matched */
  function marked(loaded, text, matched, start = 0, end = text.length) {
    const out = document.createDocumentFragment();
    let done = start;
    for (const { word, at } of loaded.terms.words(text.slice(start, end))) {
      if (!matched.has(loaded.terms.term(word))) continue;
      out.append(text.slice(done, start + at));
      const mark = document.createElement("mark");
      mark.textContent = word;
      out.append(mark);
      done = start + at + word.length;
    }
    out.append(text.slice(done, end));
    return out;
  }

  // Some of the section's text where most of the matched terms are, cut at spaces, with "…"
  // where cut: the window that starts at a matched word and holds the most different ones.
  /** @param {Engine} loaded @param {string} text @param {Set<string>} matched */
  function snippet(loaded, text, matched) {
    const hits = loaded.terms.words(text).filter(({ word }) => matched.has(loaded.terms.term(word)));
    /** @type {{word: string, at: number} | null} */
    let best = null;
    let most = 0;
    for (const [i, hit] of hits.entries()) {
      const inside = new Set();
      for (let j = i; j < hits.length && hits[j].at < hit.at + 2 * AROUND; j++) {
        inside.add(loaded.terms.term(hits[j].word));
      }
      if (inside.size > most) [best, most] = [hit, inside.size];
      if (most === matched.size) break;
    }
    let start = best ? Math.max(0, best.at - AROUND) : 0;
    let end = Math.min(text.length, start + 3 * AROUND);
    const space = text.indexOf(" ", start);
    if (start > 0 && space >= 0 && space < (best ? best.at : end)) start = space + 1;
    if (end < text.length && text.lastIndexOf(" ", end) > start) end = text.lastIndexOf(" ", end);
    const out = document.createDocumentFragment();
    if (start > 0) out.append("… ");
    out.append(marked(loaded, text, matched, start, end));
    if (end < text.length) out.append(" …");
    return out;
  }

  /** @param {Engine} loaded @param {Result} result @param {number} number */
  function option(loaded, result, number) {
    const matched = new Set(result.terms);
    const chapter = loaded.chapters[result.c];
    const item = document.createElement("li");
    item.id = `kvpage-search-option-${number}`;
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    const where = document.createElement("span");
    where.className = "search-chapter";
    where.append(`${chapter.headline} — `, result.a ? chapter.title : marked(loaded, chapter.title, matched));
    item.append(where);
    if (result.a) {
      const heading = document.createElement("span");
      heading.className = "search-heading";
      heading.append(marked(loaded, result.h, matched));
      item.append(heading);
    }
    const text = document.createElement("span");
    text.className = "search-snippet";
    text.append(snippet(loaded, result.t, matched));
    item.append(text);
    return item;
  }

  /** @param {string} query */
  function quoted(query) {
    return query.length > QUOTED ? `${query.slice(0, QUOTED)}…` : query;
  }

  function update() {
    const typed = input.value;
    const query = typed.slice(0, LONGEST);
    results = [];
    active = -1;
    input.removeAttribute("aria-activedescendant");
    list.replaceChildren();
    list.hidden = true;
    if (!query.trim()) {
      status.textContent = "";
      return close();
    }
    popup.hidden = false;
    if (!engine) {
      status.textContent = "Loading the index…";
      loadIndex().then(() => input.value === typed && update(), saidInStatus);
      return close(false);
    }
    const found = search(engine, query);
    results = found.slice(0, SHOWN);
    const shown = engine;
    list.replaceChildren(...results.map((result, number) => option(shown, result, number)));
    list.hidden = results.length === 0;
    input.setAttribute("aria-expanded", String(!list.hidden));
    const cut = typed.length > LONGEST ? ` (only the first ${LONGEST} characters were searched)` : "";
    if (found.length === 0) status.textContent = `No results for “${quoted(query)}”${cut}`;
    else if (found.length > SHOWN) status.textContent = `${found.length} results, the first ${SHOWN} shown${cut}`;
    else status.textContent = `${found.length} result${found.length === 1 ? "" : "s"}${cut}`;
  }

  // ---- the combobox --------------------------------------------------------------------------------

  // The list is "expanded" only while it shows options; the status line alone is not a list. Closed,
  // no option is chosen: the box names none (aria-activedescendant on a hidden option is read as if
  // it were there), and Down starts again from the first.
  function close(popupToo = true) {
    if (popupToo) popup.hidden = true;
    input.setAttribute("aria-expanded", "false");
    if (active >= 0) list.children[active]?.setAttribute("aria-selected", "false");
    active = -1;
    input.removeAttribute("aria-activedescendant");
  }

  /** @param {number} chosen */
  function choose(chosen) {
    const items = list.children;
    if (active >= 0 && items[active]) items[active].setAttribute("aria-selected", "false");
    active = chosen;
    const item = items[active];
    item.setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", item.id);
    item.scrollIntoView({ block: "nearest" });
  }

  /** @param {Result} result */
  function go(result, newTab = false) {
    if (engine === null) return;
    const url = new URL(hrefOf(engine, result), location.href);
    close();
    if (newTab) {
      window.open(url.href, "_blank", "noopener");
      return;
    }
    const here = url.pathname === location.pathname && url.search === location.search;
    if (!here) {
      location.assign(url.href);
      return;
    }
    location.hash = url.hash;
    const target = document.getElementById(decodeURIComponent(url.hash.slice(1)));
    if (target) {
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.focus();
    }
  }

  input.addEventListener("input", update);
  input.addEventListener("focus", () => {
    loadIndex();
    if (input.value.trim()) update();
  });
  input.addEventListener("blur", () => close());
  // Down and Up move through the results (aria-activedescendant: the focus stays in the box), Enter
  // goes to the one chosen (or the first), Escape closes the list, then clears the box.
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (popup.hidden && input.value.trim()) update();
      if (!results.length) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      choose(active < 0 ? (step > 0 ? 0 : results.length - 1) : (active + step + results.length) % results.length);
    } else if (event.key === "Enter") {
      if (popup.hidden || !results.length) return;
      event.preventDefault();
      go(results[Math.max(active, 0)], event.ctrlKey || event.metaKey);
    } else if (event.key === "Escape") {
      if (!popup.hidden) close();
      else if (input.value) {
        input.value = "";
        update();
      } else return;
      event.preventDefault();
    }
  });
  // A click in the list keeps the focus in the box (mousedown), then goes where the option says.
  popup.addEventListener("mousedown", (event) => event.preventDefault());
  list.addEventListener("click", (event) => {
    const item = /** @type {Element} */ (event.target).closest("[role=option]");
    if (item) go(results[Array.prototype.indexOf.call(list.children, item)], event.ctrlKey || event.metaKey);
  });

  // "/" anywhere outside a text field focuses the box.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const target = /** @type {Partial<Element>} */ (event.target);
    if (target.closest && target.closest("input, textarea, select, [contenteditable]:not([contenteditable=false])"))
      return;
    event.preventDefault();
    input.focus();
    input.select();
  });

  box.hidden = false;
})();
