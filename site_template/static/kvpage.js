// kvpage page runtime: start Pyodide from the site's own files, then drive the labs.
//
// Every number the labs show comes back from Python (kvpage.bridge.handle, JSON in
// and out); this file only moves values into the page, always as text.
//
// Works over http and from file://: the runtime arrives as classic <script src>
// files (the only kind a file:// page may load), binary ones base64-encoded, and
// Pyodide's own requests for them are answered from memory through blob: URLs.
"use strict";

(() => {
  const labs = [...document.querySelectorAll("section.lab[data-lab]")];

  function say(text) {
    for (const line of document.querySelectorAll("[data-role=runtime]")) line.textContent = text;
  }

  function showError(section, message) {
    const box = section.querySelector("[data-role=error]");
    box.textContent = message;
    box.hidden = !message;
  }

  // ---- loader: start Python (bench/run.py swaps this block for stock Pyodide's loader) ----
  const config = JSON.parse(document.getElementById("kvpage-runtime").textContent);
  // Filled by the runtime's asset scripts: name -> {type, base64}.
  const assets = (globalThis.kvpageAssets ??= new Map());

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.async = false;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.append(script);
    });
  }

  function decodeBase64(text) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  async function startPython() {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    const scripts = config.scripts;
    for (const [index, src] of scripts.entries()) {
      say(`Loading Python: file ${index + 1} of ${scripts.length}…`);
      await loadScript(src);
    }
    performance.mark("kvpage:scripts-loaded");
    say("Starting Python…");
    const indexURL = new URL(config.indexURL, document.baseURI).href;
    const blobs = new Map();
    for (const [name, { type, base64 }] of assets) {
      blobs.set(new URL(name, indexURL).href, URL.createObjectURL(new Blob([decodeBase64(base64)], { type })));
    }
    assets.clear();
    performance.mark("kvpage:assets-decoded");
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return realFetch.call(globalThis, blobs.get(url) ?? input, init);
    };
    try {
      return await globalThis.loadPyodide({
        indexURL,
        createPyodideModule: globalThis._createPyodideModule,
        lockFileContents: config.lock,
        packageBaseUrl: indexURL,
        packages: ["kvpage"],
        stdout: () => {},
      });
    } finally {
      globalThis.fetch = realFetch;
      for (const url of blobs.values()) URL.revokeObjectURL(url);
    }
  }
  // ---- end of loader ----

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
      button("generate").disabled = view.done || timer !== null;
      button("step").disabled = view.done || timer !== null;
      return true;
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
        if (view !== null) render({ ok: true, result: view });
      }
    }
    function generate() {
      stop();
      timer = setInterval(tick, 150);
      tick();
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

    function chips(list, tokens) {
      list.replaceChildren(
        ...tokens.map((token) => {
          const chip = document.createElement("li");
          chip.className = token.shared ? "chip shared" : "chip";
          chip.textContent = token.text;
          return chip;
        }),
      );
    }
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
      chips(section.querySelector("[data-chips=tokens1]"), reply.result.tokens1);
      chips(section.querySelector("[data-chips=tokens2]"), reply.result.tokens2);
    }
    for (const box of boxes) {
      box.addEventListener("input", () => {
        clearTimeout(pending);
        pending = setTimeout(update, 100);
      });
    }
    update();
  }

  const controllers = { decode: decodeLab, "next-request": nextRequestLab };

  startPython().then(
    (pyodide) => {
      performance.mark("kvpage:python-started");
      const call = makeBridge(pyodide);
      for (const section of labs) controllers[section.dataset.lab](section, call);
      for (const element of document.querySelectorAll("section.lab [data-control], section.lab [data-action]")) {
        element.disabled = false;
      }
      say("Live: these numbers are computed by kvpage's Python model, running in your browser.");
      document.documentElement.dataset.python = "ready";
      performance.mark("kvpage:labs-live");
    },
    (error) => {
      say(`The labs could not start (${error.message}); the numbers shown were computed when this page was built.`);
      document.documentElement.dataset.python = "failed";
    },
  );
})();
