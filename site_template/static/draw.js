// kvpage drawing: turns a lab view computed by Python into SVG and text.
//
// Every shape here is a view field drawn as it is: rectangles of attention
// cells, chart series, bar values and token chips all come from kvpage's
// Python model (at build time in the page's embedded JSON, then live from
// Pyodide). Nothing is computed here but positions on screen, and reader text
// only ever reaches the page through textContent or attributes.
//
// Loaded before kvpage.js; draws each lab's build-time view at once, so the
// pictures are there before Python starts, or if it never does.
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

  // ---- Lab 1: the attention grid and the KV slots ----------------------------

  function cellLines(size, rows) {
    const parts = [];
    for (let i = 1; i < size; i += 1) parts.push(`M${i} 0V${rows}`);
    for (let i = 1; i < rows; i += 1) parts.push(`M0 ${i}H${size}`);
    return parts.join("");
  }

  function drawGrid(container, grid) {
    const n = grid.size;
    const root = picture(`0 0 ${n} ${n}`, grid.dense ? "attention-grid dense" : "attention-grid");
    root.setAttribute("preserveAspectRatio", "none");
    root.dataset.size = String(n);
    root.append(svgElement("rect", { class: "grid-empty", x: 0, y: 0, width: n, height: n }));
    for (const kind of ["held", "now"]) {
      for (const [row, col, rows, cols] of grid[kind]) {
        root.append(
          svgElement("rect", {
            class: `grid-${kind}`,
            "data-kind": kind,
            x: col,
            y: row,
            width: cols,
            height: rows,
            ...(kind === "now" ? THIN : {}),
          }),
        );
      }
    }
    if (!grid.dense) root.append(svgElement("path", { class: "grid-lines", d: cellLines(n, n), ...THIN }));
    root.append(svgElement("rect", { class: "grid-prompt", x: 0, y: 0, width: grid.prompt, height: grid.prompt, ...THIN }));
    container.replaceChildren(root);
  }

  function drawSlots(container, grid) {
    const n = grid.size;
    const root = picture(`0 0 ${n} 1`, grid.dense ? "kv-slots dense" : "kv-slots");
    root.setAttribute("preserveAspectRatio", "none");
    root.append(svgElement("rect", { class: "slot-empty", x: 0, y: 0, width: n, height: 1 }));
    for (const run of grid.slots) {
      root.append(
        svgElement("rect", {
          class: `slot-${run.kind}`,
          "data-kind": run.kind,
          "data-count": run.count,
          x: run.start,
          y: 0,
          width: run.count,
          height: 1,
        }),
      );
    }
    if (!grid.dense) root.append(svgElement("path", { class: "grid-lines", d: cellLines(n, 1), ...THIN }));
    container.replaceChildren(root);
  }

  // ---- Lab 1: the running chart ---------------------------------------------

  const CHART = { width: 300, height: 160, left: 36, right: 12, top: 12, bottom: 26 };

  function drawChart(container, chart, key) {
    const axis = chart[key];
    const { width, height, left, right, top, bottom } = CHART;
    const root = picture(`0 0 ${width} ${height}`, "chart-svg");
    root.dataset.chart = key;
    const x = (step) =>
      chart.steps === 1 ? (left + width - right) / 2 : left + ((step - 1) / (chart.steps - 1)) * (width - left - right);
    const y = (value) => height - bottom - (value / axis.top) * (height - top - bottom);

    for (const tick of axis.ticks) {
      root.append(svgElement("line", { class: "chart-rule", x1: left, x2: width - right, y1: y(tick.value), y2: y(tick.value) }));
      root.append(
        svgElement("text", { class: "chart-tick", x: left - 4, y: y(tick.value), "text-anchor": "end", dy: "0.32em" }, tick.text),
      );
    }
    for (const tick of chart.x.ticks) {
      root.append(
        svgElement("text", { class: "chart-tick", x: x(tick.value), y: height - bottom + 13, "text-anchor": "middle" }, tick.text),
      );
    }
    root.append(
      svgElement("text", { class: "chart-tick", x: (left + width - right) / 2, y: height - 3, "text-anchor": "middle" }, "step"),
    );

    const ordered = [...chart.series].sort((a, b) => Number(a.current) - Number(b.current));
    for (const series of ordered) {
      const role = series.current ? "current" : "other";
      const values = series[key];
      const points = values.map((value, index) => `${x(index + 1)},${y(value)}`).join(" ");
      root.append(svgElement("polyline", { class: `series series-${role}`, "data-series": role, "data-mode": series.mode, points }));
      values.forEach((value, index) => {
        root.append(
          svgElement("circle", {
            class: `point point-${role}`,
            "data-series": role,
            "data-step": index + 1,
            "data-value": value,
            cx: x(index + 1),
            cy: y(value),
            r: series.current ? 2.6 : 1.6,
          }),
        );
      });
    }

    if (key === "per_step") {
      for (const note of chart.notes) {
        const px = x(note.step);
        const anchor = px > width * 0.7 ? "end" : px < width * 0.3 ? "start" : "middle";
        const dx = anchor === "start" ? 6 : anchor === "end" ? -6 : 0;
        const py = note.place === "below" ? Math.min(height - bottom - 4, y(note.value) + 14) : Math.max(top + 8, y(note.value) - 8);
        root.append(svgElement("text", { class: "chart-note", x: px + dx, y: py, "text-anchor": anchor }, note.text));
      }
    }
    container.replaceChildren(root);
  }

  function drawTable(table, data) {
    const groups = htmlElement("tr");
    groups.append(htmlElement("td"));
    for (const name of data.groups) {
      const cell = htmlElement("th", "", name);
      cell.scope = "colgroup";
      cell.colSpan = 2;
      groups.append(cell);
    }
    const head = htmlElement("tr");
    for (const name of data.columns) {
      const cell = htmlElement("th", "", name);
      cell.scope = "col";
      head.append(cell);
    }
    table.tHead.replaceChildren(groups, head);
    table.tBodies[0].replaceChildren(
      ...data.rows.map(([step, ...values]) => {
        const row = htmlElement("tr");
        const first = htmlElement("th", "", step);
        first.scope = "row";
        row.append(first, ...values.map((value) => htmlElement("td", "", value)));
        return row;
      }),
    );
  }

  function decode(section, view) {
    const part = (name) => section.querySelector(`[data-draw="${name}"]`);
    drawGrid(part("grid"), view.grid);
    drawSlots(part("slots"), view.grid);
    drawChart(part("per_step"), view.chart, "per_step");
    drawChart(part("totals"), view.chart, "totals");
    drawTable(part("table"), view.chart.table);
    for (const series of view.chart.series) {
      section.querySelector(`[data-legend="${series.current ? "current" : "other"}"]`).textContent = series.name;
    }
    setText(section, "grid", view.grid.text);
    setText(section, "chart", view.chart.text);
  }

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

  function nextRequest(section, result) {
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

  const draw = { decode, "next-request": nextRequest };
  globalThis.kvpageDraw = draw;

  for (const section of document.querySelectorAll("section.lab[data-lab]")) {
    const embedded = section.querySelector("script[data-view]");
    if (embedded && draw[section.dataset.lab]) draw[section.dataset.lab](section, JSON.parse(embedded.textContent));
  }
})();
