// The next-request lab's own script: token chips (hover or focus shows an index, arrow keys move)
// and the cost bars. Registered by name ("next-request", kvpage/labs/next_request.py); its text
// boxes, readouts and errors are wired like every lab's (static/labs.js). Typing is debounced,
// and a refused input clears the chips so no stale tokens sit beside an error.
"use strict";

(() => {
  const { THIN, svgElement, picture, htmlElement, setText } = globalThis.kvpageDraw;


  // ---- Lab 2: token chips and bars --------------------------------------------

  function showTip(info, chip) {
    info.textContent = chip ? chip.dataset.tip : "";
  }

  function moveFocus(list, chip) {
    for (const other of list.children) other.tabIndex = other === chip ? 0 : -1;
    chip.focus();
  }

  function wireChips(list, info) {
    list.addEventListener("pointerover", (event) => showTip(info, event.target.closest(".chip")));
    list.addEventListener("pointerleave", () => showTip(info, list.contains(document.activeElement) ? document.activeElement : null));
    list.addEventListener("focusin", (event) => showTip(info, event.target.closest(".chip")));
    list.addEventListener("focusout", (event) => list.contains(event.relatedTarget) || showTip(info, null));
    list.addEventListener("keydown", (event) => {
      const chips = [...list.children];
      const at = chips.indexOf(document.activeElement);
      if (at < 0) return;
      const target = {
        ArrowRight: at + 1,
        ArrowDown: at + 1,
        ArrowLeft: at - 1,
        ArrowUp: at - 1,
        Home: 0,
        End: chips.length - 1,
      }[event.key];
      if (target === undefined) return;
      event.preventDefault();
      moveFocus(list, chips[Math.max(0, Math.min(chips.length - 1, target))]);
    });
  }

  function drawChips(list, info, pairs, tips, shared) {
    if (!list.dataset.wired) {
      wireChips(list, info);
      list.dataset.wired = "true";
    }
    list.replaceChildren(
      ...pairs.map(([shown, kind], index) => {
        const chip = htmlElement("li", "chip");
        chip.dataset.kind = kind;
        if (index === shared - 1) chip.dataset.endsPrefix = "";
        chip.dataset.tip = `#${index + 1} “${shown}” · ${tips[kind]}`;
        chip.tabIndex = index === 0 ? 0 : -1;
        chip.append(htmlElement("span", "chip-text", shown), htmlElement("span", "visually-hidden", ` #${index + 1}, ${tips[kind]}`));
        return chip;
      }),
    );
    showTip(info, null);
  }

  function drawBars(container, data) {
    container.replaceChildren(
      ...data.bars.map((bar) => {
        const row = htmlElement("div", "bar-row");
        const track = picture("0 0 100 10", "bar-track");
        track.setAttribute("preserveAspectRatio", "none");
        const share = data.top > 0 ? (100 * bar.value) / data.top : 0;
        track.append(
          svgElement("rect", { class: "bar-back", x: 0, y: 0, width: 100, height: 10, ...THIN }),
          svgElement("rect", { class: "bar-fill", "data-value": bar.value, x: 0, y: 0, width: share, height: 10 }),
        );
        row.append(htmlElement("span", "bar-name", bar.name), track, htmlElement("span", "bar-value", bar.text));
        return row;
      }),
    );
  }
  function draw(section, result) {
    for (const n of [1, 2]) {
      drawChips(
        section.querySelector(`[data-chips="tokens${n}"]`),
        section.querySelector(`[data-chip-info="tokens${n}"]`),
        result[`tokens${n}`],
        result[`tips${n}`],
        result.shared,
      );
    }
    drawBars(section.querySelector('[data-draw="bars"]'), result.bars);
    setText(section, "bars", result.bars.text);
  }

  function start(section, lab) {
    lab.debounce(100);
    lab.onUpdate((ok) => {
      if (!ok) for (const list of section.querySelectorAll("[data-chips]")) list.replaceChildren();
    });
  }

  globalThis.kvpageLabs.register("next-request", { draw, start });
})();
