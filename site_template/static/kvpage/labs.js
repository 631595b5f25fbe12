// Stage "labs": every lab on the page, wired from its schema to Python's workers.
//
// A lab is declared once, in Python (kvpage/labs/NAME.py, its LAB); the page's config holds its
// schema (Lab.schema): the action every input calls (`update`), each control's kind, each button's
// action, and which outputs are texts and which element trees. The templates printed the lab from
// the same schema, with its starting view: controls as [data-control=NAME], buttons as
// [data-action=NAME], texts as [data-field=NAME] (readouts and [[fields]] in the prose), trees
// inside [data-part=NAME], and the view's state, if it has one, in the section's data-state. So
// nothing is drawn or computed here at start-up: the page already shows what the build computed.
//
// Any input calls the update action with every control's value (and the lab's state, if it has
// one), a button calls its action the same way, and each reply's view replaces the texts and the
// trees. A lab has at most one call out at a time; the arguments are read from the controls when a
// call goes, so a click is never lost and a run moves on from the last answer. Answers come in the
// order the calls went, and an update's answer is dropped, never drawn, when the reader has changed
// a control since (another update waits): the page never shows numbers for inputs it no longer has.
// A refusal or a model failure comes back as a value and is shown in the lab, the model's traceback
// goes to the console; a call that takes longer than the book's call_timeout is stopped (its worker
// terminated, stage "python") and the lab is reset to how the page started.
//
// A lab that needs more (a timer, keys) registers a small script of its own by its name:
//   kvpageLabs.register(NAME, { start(section, lab) })
// `start` runs once, before Python is live, with the handle `lab` below.

const LIVE = "Live: these numbers are computed by kvpage's Python model, running in your browser.";
const STILL_WORKING = "Python is still working on this…";
const SLOW_MS = 1000; // after this long without an answer, the lab says it is still waiting
const labModules = new Map();
const labHandles = new WeakMap(); // section -> the handle below, for kvpageLabs.lab(section)

function showError(section, message, traceback) {
  const box = section.querySelector("[data-role=error]");
  box.textContent = message;
  box.hidden = !message;
  if (traceback) console.error(`kvpage lab ${section.dataset.lab}: ${message}\n${traceback}`);
}

function sayIn(section, text) {
  for (const line of section.querySelectorAll("[data-role=runtime]")) line.textContent = text;
}

function timeoutMessage(seconds) {
  return `The model took longer than ${seconds} s and was stopped; the lab was reset.`;
}

// One lab: `pool.call(request)` answers the JSON text kvpage.bridge.handle takes with the text it
// returns, or fails with {timedOut: true} (stage "python").
function wireLab(section, schema, pool, seconds) {
  const name = schema.name;
  const module = labModules.get(name) ?? {};
  const texts = schema.outputs.filter((output) => TEXT_KINDS.includes(output.kind)).map((output) => output.name);
  const trees = schema.outputs.filter((output) => !TEXT_KINDS.includes(output.kind)).map((output) => output.name);
  const controlsOf = (control) => [...section.querySelectorAll(`[data-control="${control.name}"]`)];
  const updated = [];
  const before = [];
  const onLive = [];
  let state = section.dataset.state === undefined ? undefined : JSON.parse(section.dataset.state);
  let view = null; // the last view drawn, once Python has answered
  const queue = []; // actions waiting for the one out to come back
  let out = null;
  let wait = 0;
  let pending = null;
  let live = false;

  // Every control's value, by name, as its kind: numbers for sliders and number boxes, true/false
  // for a checkbox, the checked option of a radio group, the text of a text box.
  function values() {
    const found = {};
    for (const control of schema.controls) {
      const elements = controlsOf(control);
      if (control.kind === "choice") found[control.name] = elements.find((element) => element.checked)?.value;
      else if (control.kind === "checkbox") found[control.name] = elements[0].checked;
      else if (control.kind === "slider" || control.kind === "number") found[control.name] = Number(elements[0].value);
      else found[control.name] = elements[0].value;
    }
    return found;
  }
  function setValues(given) {
    for (const control of schema.controls) {
      if (!(control.name in given)) continue;
      const value = given[control.name];
      for (const element of controlsOf(control)) {
        if (control.kind === "choice") element.checked = element.value === value;
        else if (control.kind === "checkbox") element.checked = Boolean(value);
        else element.value = String(value);
        const shown = element.id && section.querySelector(`[data-shows="${element.id}"]`);
        if (shown) shown.textContent = element.value;
      }
    }
  }
  // The controls as the build printed them: a browser may have put back what the reader had typed
  // before a reload, which the view on the page (the build's) does not show.
  for (const control of schema.controls) {
    for (const element of controlsOf(control)) {
      if (control.kind === "choice" || control.kind === "checkbox") element.checked = element.defaultChecked;
      else element.value = element.defaultValue;
      const shown = element.id && section.querySelector(`[data-shows="${element.id}"]`);
      if (shown) shown.textContent = element.value;
    }
  }
  const started = { controls: values(), state };
  // What the build showed, to put back when the lab is reset.
  const outputs = [...section.querySelectorAll("[data-field], [data-part]")].map((element) => [
    element,
    [...element.childNodes].map((node) => node.cloneNode(true)),
  ]);

  function render(reply) {
    if (!reply.ok) {
      showError(section, reply.error, reply.traceback);
      for (const field of texts) for (const element of section.querySelectorAll(`[data-field="${field}"]`)) element.textContent = "—";
      for (const part of trees) for (const element of section.querySelectorAll(`[data-part="${part}"]`)) element.replaceChildren();
    } else {
      const result = reply.result;
      try {
        for (const part of trees) {
          for (const element of section.querySelectorAll(`[data-part="${part}"]`)) renderTree(element, result.parts[part]);
        }
      } catch (error) {
        return render({ ok: false, error: error.message });
      }
      showError(section, "");
      view = result;
      state = result.state;
      for (const field of texts) {
        for (const element of section.querySelectorAll(`[data-field="${field}"]`)) element.textContent = result.text[field];
      }
    }
    for (const hook of updated) hook(reply.ok);
    return reply.ok;
  }

  function reset(message) {
    queue.length = 0;
    clearTimeout(pending);
    state = started.state;
    view = null;
    setValues(started.controls);
    for (const [element, nodes] of outputs) element.replaceChildren(...nodes.map((node) => node.cloneNode(true)));
    showError(section, message);
    for (const hook of updated) hook(false);
  }

  function send() {
    if (out !== null || queue.length === 0) return;
    out = queue.shift();
    const action = out;
    const given = values();
    const request = JSON.stringify({ lab: name, action, args: state === undefined ? given : { ...given, state } });
    const slow = setTimeout(() => sayIn(section, STILL_WORKING), SLOW_MS);
    const done = () => {
      clearTimeout(slow);
      sayIn(section, LIVE);
      out = null;
    };
    pool.call(request).then(
      (text) => {
        done();
        let reply;
        try {
          reply = JSON.parse(text);
        } catch (error) {
          reply = { ok: false, error: `the lab could not read Python's answer: ${error.message}` };
        }
        // Stale: the reader changed a control after this update went, and the next update waits.
        if (!(action === schema.update && queue.includes(schema.update))) render(reply);
        send();
      },
      (error) => {
        done();
        if (error.timedOut) reset(timeoutMessage(seconds));
        else render({ ok: false, error: `the lab could not reach Python: ${error.message}` });
        send();
      },
    );
  }

  function request(action) {
    // One waiting update stands for any number of them: it reads the controls when it goes.
    if (action === schema.update && queue.at(-1) === action) return;
    queue.push(action);
    send();
  }

  // The handle a lab's own script gets.
  const lab = {
    state: () => state,
    view: () => view,
    run: (action) => request(action),
    busy: () => out !== null || queue.length > 0,
    onUpdate: (hook) => updated.push(hook),
    beforeAction: (hook) => before.push(hook),
    onLive: (hook) => (live ? hook() : onLive.push(hook)),
    debounce: (ms) => {
      wait = ms;
    },
    // The lab as plain JSON (its controls and its state), and back: what a link could carry.
    saved: () => ({ controls: values(), state }),
    restore: (saved) => {
      setValues(saved.controls ?? {});
      state = saved.state;
      request(schema.update);
    },
  };

  for (const control of schema.controls) {
    for (const element of controlsOf(control)) {
      element.addEventListener("input", () => {
        for (const hook of before) hook();
        const shown = element.id && section.querySelector(`[data-shows="${element.id}"]`);
        if (shown) shown.textContent = element.value;
        clearTimeout(pending);
        if (wait > 0) pending = setTimeout(() => request(schema.update), wait);
        else request(schema.update);
      });
    }
  }
  for (const button of schema.buttons) {
    if (!button.calls) continue; // the lab's own script handles it
    section.querySelector(`[data-action="${button.name}"]`).addEventListener("click", () => {
      for (const hook of before) hook();
      request(button.calls);
    });
  }
  labHandles.set(section, lab);
  try {
    module.start?.(section, lab);
  } catch (error) {
    showError(section, `this lab's script failed: ${error.message}`, error.stack);
  }
  return {
    section,
    lab,
    live() {
      live = true;
      for (const element of section.querySelectorAll("[data-control], [data-action]")) element.disabled = false;
      sayIn(section, LIVE);
      for (const hook of onLive.splice(0)) hook();
    },
    failed(error) {
      sayIn(section, `The labs could not start (${error.message}); the numbers shown were computed when this page was built.`);
    },
    // A new model is in (serve): the lab computed again at the values and state it has now.
    refresh() {
      if (live) request(schema.update);
    },
  };
}

// Every lab of the page (its schema is in the config), wired to the `pool` of Python workers.
function wireLabs(config, pool) {
  const wired = [];
  for (const section of document.querySelectorAll("section.lab[data-lab]")) {
    const schema = config.labs[section.dataset.lab];
    if (schema) wired.push(wireLab(section, schema, pool, config.call_timeout));
  }
  return wired;
}

// register(name, module): a lab's own script; lab(section): a wired lab's handle (its saved() state
// and restore(), for instance, which a link to the lab could carry).
globalThis.kvpageLabs = { register: (name, module) => labModules.set(name, module), lab: (section) => labHandles.get(section) };
