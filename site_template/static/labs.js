// kvpage labs: wires every lab on the page to kvpage's Python, from what its template printed.
//
// A lab is declared once, in Python (kvpage/labs/NAME.py, its LAB): the templates print its
// controls as [data-control=NAME], its buttons as [data-action=NAME][data-calls=ACTION] and
// its readouts as [data-field=NAME], and the section names the action that recomputes the
// view (data-update). This file needs nothing else: any input calls the update action with
// every control's value (and the last view's `state`, if it had one), a button calls its
// action the same way, and each reply's `text` fills the outputs. So a lab made only of
// generic controls has no JavaScript of its own.
//
// A lab that draws, or needs more (a timer), registers a small module by its name:
//   kvpageLabs.register(NAME, { draw(section, view), start(section, lab) })
// `draw` runs for the build-time view at once (so pictures are there before Python starts,
// or if it never does) and after every reply; `start` gets the `lab` handle below.
//
// Every number comes back from Python (kvpage.bridge.handle, JSON in and out); a refusal or a
// model failure comes back as a value and is shown in the lab, the model's traceback goes to
// the console. Values only ever reach the page as text.
"use strict";

(() => {
  const modules = new Map();

  function embeddedView(section) {
    const embedded = section.querySelector("script[data-view]");
    return embedded ? JSON.parse(embedded.textContent) : null;
  }

  function register(name, module) {
    modules.set(name, module);
    if (!module.draw) return;
    for (const section of document.querySelectorAll(`section.lab[data-lab="${name}"]`)) {
      const view = embeddedView(section);
      if (view) module.draw(section, view);
    }
  }

  function showError(section, message, traceback) {
    const box = section.querySelector("[data-role=error]");
    box.textContent = message;
    box.hidden = !message;
    if (traceback) console.error(`kvpage lab ${section.dataset.lab}: ${message}\n${traceback}`);
  }

  function showFields(section, text) {
    for (const output of section.querySelectorAll("[data-field]")) {
      const value = text[output.dataset.field];
      if (value !== undefined) output.textContent = value;
    }
  }

  // Every control's value, by name: numbers for sliders and number boxes, true/false for a
  // checkbox, the checked option of a radio group, the text of a text box.
  function values(section) {
    const found = {};
    for (const control of section.querySelectorAll("[data-control]")) {
      const name = control.dataset.control;
      if (control.type === "radio") {
        if (control.checked) found[name] = control.value;
      } else if (control.type === "checkbox") {
        found[name] = control.checked;
      } else if (control.type === "range" || control.type === "number") {
        found[name] = Number(control.value);
      } else {
        found[name] = control.value;
      }
    }
    return found;
  }

  function makeBridge(pyodide) {
    const module = pyodide.pyimport("kvpage.bridge");
    const handle = module.handle.copy(); // an owned proxy: it outlives the module's
    module.destroy();
    addEventListener("pagehide", (event) => event.persisted || handle.destroy());
    return (lab, action, args) => {
      try {
        return JSON.parse(handle(JSON.stringify({ lab, action, args })));
      } catch (error) {
        return { ok: false, error: `the lab could not reach Python: ${error.message}` };
      }
    };
  }

  function wire(section, call) {
    const name = section.dataset.lab;
    const module = modules.get(name) ?? {};
    const updated = [];
    const before = [];
    let view = embeddedView(section);
    let wait = 0;
    let pending = null;

    function args() {
      return view && view.state !== undefined ? { ...values(section), state: view.state } : values(section);
    }
    function render(reply) {
      if (!reply.ok) {
        showError(section, reply.error, reply.traceback);
        for (const output of section.querySelectorAll("[data-field]")) output.textContent = "—";
      } else {
        showError(section, "");
        view = reply.result;
        showFields(section, view.text);
        module.draw?.(section, view);
      }
      for (const hook of updated) hook(reply.ok);
      return reply.ok;
    }
    // The handle a lab's own script gets.
    const lab = {
      view: () => view,
      run: (action, given = args()) => render(call(name, action, given)),
      onUpdate: (hook) => updated.push(hook),
      beforeAction: (hook) => before.push(hook),
      debounce: (ms) => {
        wait = ms;
      },
    };
    const update = () => {
      pending = null;
      lab.run(section.dataset.update);
    };

    for (const control of section.querySelectorAll("[data-control]")) {
      control.addEventListener("input", () => {
        for (const hook of before) hook();
        const shown = control.id && section.querySelector(`[data-shows="${control.id}"]`);
        if (shown) shown.textContent = control.value;
        clearTimeout(pending);
        if (wait > 0) pending = setTimeout(update, wait);
        else update();
      });
    }
    for (const button of section.querySelectorAll("[data-action]")) {
      if (!button.dataset.calls) continue; // the lab's own script handles it
      button.addEventListener("click", () => {
        for (const hook of before) hook();
        lab.run(button.dataset.calls);
      });
    }
    for (const element of section.querySelectorAll("[data-control], [data-action]")) element.disabled = false;
    try {
      module.start?.(section, lab);
    } catch (error) {
      showError(section, `this lab's script failed: ${error.message}`, error.stack);
    }
    update();
  }

  // Called by the loader once Python runs.
  function start(pyodide) {
    const call = makeBridge(pyodide);
    for (const section of document.querySelectorAll("section.lab[data-lab]")) wire(section, call);
  }

  globalThis.kvpageLabs = { register, start };
})();
