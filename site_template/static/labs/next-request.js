// The next-request lab's own script (kvpage/labs/next_request.py): the token chips' hover, focus and
// arrow keys, the presets and the typing debounce; the page draws everything else from each view
// (static/kvpage/lab.js). Nothing is computed here.
"use strict";

(() => {
  /** @param {Element} info @param {Element | null} chip */
  function showTip(info, chip) {
    info.textContent = chip ? (chip.querySelector(".visually-hidden")?.textContent ?? "") : "";
  }

  /** @param {Element} list @param {Element} chip */
  function moveFocus(list, chip) {
    for (const other of /** @type {HTMLCollectionOf<HTMLElement>} */ (list.children)) other.tabIndex = other === chip ? 0 : -1;
    /** @type {HTMLElement} */ (chip).focus();
  }

  // The token rows scrolled (sideways only, never the page) so the first difference shows, a
  // quarter of the way in: request 2's first token not shared (one that differs, or the first past
  // the end of request 1); none, no scroll.
  /** @param {Element} rows */
  function showDifference(rows) {
    const chip = rows.querySelector("[data-part=tokens2] .chip:not([data-kind=shared])");
    if (!chip) return;
    const box = rows.getBoundingClientRect();
    const at = chip.getBoundingClientRect().left - box.left + rows.scrollLeft;
    rows.scrollLeft = Math.max(0, at - rows.clientWidth / 4);
  }

  // `other`: the other request's list, which Up (from request 2) or Down (from request 1) goes to.
  /** @param {Element} target @returns {Element | null} */
  const chipAt = (target) => (target instanceof Element ? target.closest(".chip") : null);

  /** @param {HTMLElement} list @param {HTMLElement} info @param {HTMLElement} other @param {boolean} down */
  function wireChips(list, info, other, down) {
    list.addEventListener("click", (event) => {
      const chip = chipAt(/** @type {Element} */ (event.target));
      if (chip) moveFocus(list, chip);
    });
    const rows = /** @type {HTMLElement} */ (list.parentElement); // both lists, between which the pointer may cross to the line
    const kept = (/** @type {EventTarget | null} */ element) => element instanceof Node && (list.contains(element) || info.contains(element) || rows.contains(element));
    const leave = (/** @type {PointerEvent} */ event) => kept(event.relatedTarget) || showTip(info, list.contains(document.activeElement) ? document.activeElement : null);
    list.addEventListener("pointerover", (event) => showTip(info, chipAt(/** @type {Element} */ (event.target))));
    list.addEventListener("pointerleave", leave);
    info.addEventListener("pointerleave", leave);
    list.addEventListener("focusin", (event) => showTip(info, chipAt(/** @type {Element} */ (event.target))));
    list.addEventListener("focusout", (event) => list.contains(/** @type {Node | null} */ (event.relatedTarget)) || showTip(info, null));
    list.addEventListener("keydown", (event) => {
      const chips = [...list.children];
      const at = chips.indexOf(/** @type {Element} */ (document.activeElement));
      if (at < 0) return;
      if ((event.key === "ArrowDown" && down) || (event.key === "ArrowUp" && !down)) {
        event.preventDefault();
        const across = [...other.children];
        if (across.length > 0) moveFocus(other, across[Math.min(at, across.length - 1)]);
        return;
      }
      const target = /** @type {Record<string, number>} */ ({ ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: chips.length - 1 })[event.key];
      if (target === undefined) return;
      event.preventDefault();
      moveFocus(list, chips[Math.max(0, Math.min(chips.length - 1, target))]);
    });
  }

  // Each chip carries, for screen readers, what it is ("#11 “␣3” · paid"); the line under the rows shows
  // that while the chip is hovered or focused (a tap focuses it), and stays while the pointer moves on
  // to it. Left, Right, Home and End move along a row, Up and Down to the other request's token. The
  // rows scroll sideways to the first difference after every view: on a phone they are wider than the
  // screen. A preset (data-action=preset_NAME) puts the model's text for it into request 2, as typing.
  /** @param {HTMLElement} section @param {LabHandle} lab */
  function start(section, lab) {
    const lists = [.../** @type {NodeListOf<HTMLElement>} */ (section.querySelectorAll("[data-part^=tokens]"))];
    const infos = lists.map((list) => /** @type {HTMLElement} */ (section.querySelector(`[data-chip-info="${list.dataset.part}"]`)));
    lists.forEach((list, index) => wireChips(list, infos[index], lists[1 - index], index === 0));
    lab.debounce(100);
    const second = /** @type {HTMLTextAreaElement} */ (section.querySelector("[data-control=request2]"));
    for (const preset of section.querySelectorAll("[data-action^=preset_]")) {
      preset.addEventListener("click", () => {
        const name = /** @type {HTMLElement} */ (preset).dataset.action ?? "";
        second.value = lab.view()?.text[name] ?? section.querySelector(`[data-field="${name}"]`)?.textContent ?? "";
        second.dispatchEvent(new Event("input", { bubbles: true }));
      });
    }
    const rows = /** @type {Element} */ (section.querySelector(".token-rows"));
    showDifference(rows);
    lab.onUpdate(() => {
      for (const info of infos) showTip(info, null);
      showDifference(rows);
    });
  }

  globalThis.kvpageLabs.register("next-request", { start });
})();
