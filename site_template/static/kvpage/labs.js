// Stage "labs": drive the labs with the started Python (everything the page does once it is up).
//
// Every number the labs show comes back from Python (kvpage.bridge.handle, JSON in and out); this
// stage only moves values into the page, always as text.
//
// Its interface with stage "boot" (boot.js), and nothing else: boot calls startLabs(pyodide) once
// Python is up (a throw counts as a failure), or labsFailed(error) if it could not start; boot then
// sets data-python on <html>, the "kvpage:labs-live" mark and the last "kvpage:progress" event.
// From boot it uses say(text) (the page's runtime line); globalThis.kvpageDraw comes from draw.js.
const labs = [...document.querySelectorAll("section.lab[data-lab]")];

function showError(section, message) {
  const box = section.querySelector("[data-role=error]");
  box.textContent = message;
  box.hidden = !message;
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

function showFields(section, text) {
  for (const output of section.querySelectorAll("[data-field]")) {
    const value = text[output.dataset.field];
    if (value !== undefined) output.textContent = value;
  }
}

function decodeLab(section, call) {
  const control = (name) => section.querySelector(`[data-control=${name}]`);
  const button = (name) => section.querySelector(`[data-action=${name}]`);
  const readouts = section.querySelector("[data-role=readouts]");
  const calm = matchMedia("(prefers-reduced-motion: reduce)");
  let view = null;
  let timer = null;

  function render(reply) {
    if (!reply.ok) {
      showError(section, reply.error);
      stop();
      return false;
    }
    showError(section, "");
    view = reply.result;
    showFields(section, view.text);
    section.querySelector("[data-show=status]").textContent = view.status;
    section.querySelector("[data-show=progress]").textContent = view.text.progress;
    globalThis.kvpageDraw.decode(section, view);
    showButtons();
    return true;
  }
  // While Generate runs it reads "Pause"; idle, it reads "Generate" and is disabled
  // once the run is done. Focus never stays on a button that just got disabled.
  function showButtons() {
    const running = timer !== null;
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
  function reset() {
    stop();
    const mode = section.querySelector("[data-control=mode]:checked").value;
    render(call("decode", "start", { prompt: Number(control("prompt").value), tokens: Number(control("tokens").value), mode }));
  }
  function step() {
    return view !== null && render(call("decode", "step", { state: view.state }));
  }
  function tick() {
    if (!step() || view === null || view.done) {
      stop();
      showButtons();
    }
  }
  function generate() {
    if (timer !== null) {
      stop();
      showButtons();
    } else if (view !== null && calm.matches) {
      render(call("decode", "finish", { state: view.state }));
    } else if (view !== null) {
      timer = setInterval(tick, Math.max(40, Math.min(150, 2400 / view.state.tokens)));
      tick();
    }
  }

  for (const name of ["prompt", "tokens"]) {
    const input = control(name);
    input.addEventListener("input", () => {
      section.querySelector(`[data-shows="${input.id}"]`).textContent = input.value;
      reset();
    });
  }
  for (const radio of section.querySelectorAll("[data-control=mode]")) radio.addEventListener("change", reset);
  button("generate").addEventListener("click", generate);
  button("step").addEventListener("click", () => {
    stop();
    step();
  });
  button("reset").addEventListener("click", reset);
  reset();
}

function nextRequestLab(section, call) {
  const boxes = [1, 2].map((n) => section.querySelector(`[data-control=request${n}]`));
  let pending = null;

  function update() {
    pending = null;
    const reply = call("next-request", "compare", { request1: boxes[0].value, request2: boxes[1].value });
    if (!reply.ok) {
      // No stale numbers next to a refused input: blank them until the input is usable.
      showError(section, reply.error);
      for (const output of section.querySelectorAll("[data-field]")) output.textContent = "—";
      for (const list of section.querySelectorAll("[data-chips]")) list.replaceChildren();
      return;
    }
    showError(section, "");
    showFields(section, reply.result.text);
    globalThis.kvpageDraw["next-request"](section, reply.result);
  }
  for (const box of boxes) {
    box.addEventListener("input", () => {
      clearTimeout(pending);
      pending = setTimeout(update, 100);
    });
  }
  update();
}

// A lab without a controller of its own (the example lab, "square"): any input sends the
// values of all its controls to the model's "compute" action and shows the reply's fields.
// A new lab whose numbers follow from its inputs needs no JavaScript (docs/authoring.md).
function formLab(section, call) {
  const controls = [...section.querySelectorAll("[data-control]")];
  const value = (control) => (control.type === "number" || control.type === "range" ? Number(control.value) : control.value);
  function update() {
    const args = Object.fromEntries(controls.map((control) => [control.dataset.control, value(control)]));
    const reply = call(section.dataset.lab, "compute", args);
    if (!reply.ok) {
      showError(section, reply.error);
      for (const output of section.querySelectorAll("[data-field]")) output.textContent = "—";
      return;
    }
    showError(section, "");
    showFields(section, reply.result.text);
  }
  for (const control of controls) control.addEventListener("input", update);
  update();
}

const controllers = { decode: decodeLab, "next-request": nextRequestLab };

// Called by boot once Python is up.
function startLabs(pyodide) {
  const call = makeBridge(pyodide);
  for (const section of labs) (controllers[section.dataset.lab] ?? formLab)(section, call);
  for (const element of document.querySelectorAll("section.lab [data-control], section.lab [data-action]")) {
    element.disabled = false;
  }
  say("Live: these numbers are computed by kvpage's Python model, running in your browser.");
}

// Called by boot if Python (or startLabs) failed: the labs keep the numbers the build computed.
function labsFailed(error) {
  say(`The labs could not start (${error.message}); the numbers shown were computed when this page was built.`);
}
