// The decode lab's own script: the attention grid, the KV slots, the cost charts and the
// Generate timer. Registered by name ("decode", kvpage/labs/decode.py); its controls, readouts,
// Step button and errors are wired like every lab's (static/labs.js). Every shape drawn is a
// view field computed by Python.
"use strict";

(() => {
  const { THIN, svgElement, picture, htmlElement, setText } = globalThis.kvpageDraw;

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


  function draw(section, view) {
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
    section.querySelector("[data-show=status]").textContent = view.status;
    section.querySelector("[data-show=progress]").textContent = view.text.progress;
  }

  // Generate runs Step on a timer (all at once under reduced motion, by the model's "finish");
  // while it runs the button reads "Pause". Idle, it reads "Generate" and is disabled once the
  // run is done. Focus never stays on a button that just got disabled.
  function start(section, lab) {
    const button = (name) => section.querySelector(`[data-action=${name}]`);
    const readouts = section.querySelector("[data-role=readouts]");
    const calm = matchMedia("(prefers-reduced-motion: reduce)");
    let timer = null;

    function showButtons() {
      const running = timer !== null;
      const view = lab.view();
      const generate = button("generate");
      generate.textContent = running ? "Pause" : "Generate";
      generate.disabled = view === null || (view.done && !running);
      button("step").disabled = view === null || view.done;
      readouts.setAttribute("aria-busy", String(running));
      const focused = document.activeElement;
      if (focused && focused.disabled && section.contains(focused)) button("reset").focus();
    }
    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    }
    function tick() {
      const view = lab.view();
      if (view === null || !lab.run("step", { state: view.state }) || lab.view().done) {
        stop();
        showButtons();
      }
    }
    lab.onUpdate((ok) => {
      if (!ok) stop();
      showButtons();
    });
    lab.beforeAction(stop); // any input, Step or Reset stops a running Generate first
    button("generate").addEventListener("click", () => {
      const view = lab.view();
      if (timer !== null) {
        stop();
        showButtons();
      } else if (view !== null && calm.matches) {
        lab.run("finish", { state: view.state });
      } else if (view !== null) {
        timer = setInterval(tick, Math.max(40, Math.min(150, 2400 / view.state.tokens)));
        tick();
      }
    });
  }

  globalThis.kvpageLabs.register("decode", { draw, start });
})();
