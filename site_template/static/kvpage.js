// kvpage page runtime: start Pyodide from the site's own files, then hand it to the labs
// (static/labs.js wires them; every number they show comes back from Python).
//
// Works over http and from file://: see the loader block below for how Python arrives.
"use strict";

(() => {
  function say(text) {
    for (const line of document.querySelectorAll("[data-role=runtime]")) line.textContent = text;
  }

  // ---- loader: start Python (bench/run.py swaps this block for stock Pyodide's loader) ----
  //
  // Python is not started here, it is restored: the build ran Pyodide once with kvpage imported and
  // shipped its memory (sitegen/python_snapshot.py), as a patch over the wasm's data segments.
  // Over http the binaries (wasm, snapshot, wheel; the trimmed stdlib once the labs are live) are
  // fetched as themselves; from a folder (file://, where fetch of sibling files is refused) they
  // arrive as classic scripts, base64-encoded; the single-file book has those scripts inline. Each
  // binary is decoded and the wasm compiled as soon as it is here, and Pyodide sets itself up
  // meanwhile; its own requests are answered from memory. Progress goes to `document` as
  // "kvpage:progress" events, {phase: "downloading" | "starting" | "ready" | "failed", loaded,
  // total} in bytes (of what the labs wait for), and to say(). Measured: docs/performance.md.
  //
  // This relies on private Pyodide API (_loadSnapshot, the instantiateStreaming call, the snapshot
  // layout): the build refuses any Pyodide but the one it was written for (PYODIDE_VERSION in
  // sitegen/python_snapshot.py), and the page checks the version it started.
  const config = JSON.parse(document.getElementById("kvpage-runtime").textContent);
  const runtime = config.runtime;
  // Filled by the runtime's asset scripts: name -> {type, base64}.
  const assets = (globalThis.kvpageAssets ??= new Map());

  let lastProgress = { loaded: 0, total: 0 };
  function progress(phase, loaded = lastProgress.loaded, total = lastProgress.total) {
    lastProgress = { loaded, total };
    document.dispatchEvent(new CustomEvent("kvpage:progress", { detail: { phase, loaded, total } }));
  }

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
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

  function asset(name) {
    const entry = assets.get(name);
    if (entry === undefined) throw new Error(`the page has no ${config.indexURL}${name}`);
    assets.delete(name);
    return decodeBase64(entry.base64);
  }

  function leb128(bytes, at) {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at];
      at += 1;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return [value, at];
    }
  }

  // The wasm's active data segments as [memory offset, start in wasm, length]: the memory a fresh
  // instance starts from. The same parser, in Python, is sitegen/python_snapshot.py data_segments.
  function* dataSegments(wasm) {
    let at = 8;
    while (at < wasm.length) {
      const section = wasm[at];
      let size;
      [size, at] = leb128(wasm, at + 1);
      const end = at + size;
      if (section === 11) {
        let count;
        [count, at] = leb128(wasm, at);
        for (let i = 0; i < count; i += 1) {
          if (wasm[at] !== 0 || wasm[at + 1] !== 0x41) throw new Error("the wasm has an unexpected data segment");
          let offset, length;
          [offset, at] = leb128(wasm, at + 2); // i32.const, non-negative here
          [length, at] = leb128(wasm, at + 1); // after the 0x0b that ends the offset
          yield [offset, at, length];
          at += length;
        }
      }
      at = end;
    }
  }

  // Pyodide's memory snapshot from our container (sitegen/python_snapshot.py encode): "KVSNAP01",
  // u32 size, u32 heap offset, u32 record count, Pyodide's header, then records (u32 offset,
  // u32 length, bytes) that overwrite the wasm's initial memory.
  function snapshotImage(image, encoded, wasm) {
    const view = new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    const magic = String.fromCharCode(...encoded.subarray(0, 8));
    if (magic !== "KVSNAP01") throw new Error("the Python snapshot is damaged");
    const [size, heapOffset, count] = [8, 12, 16].map((at) => view.getUint32(at, true));
    if (size !== image.length) throw new Error("the Python snapshot is damaged");
    image.set(encoded.subarray(20, 20 + heapOffset));
    const heap = image.subarray(heapOffset);
    for (const [offset, start, length] of dataSegments(wasm)) heap.set(wasm.subarray(start, start + length), offset);
    let at = 20 + heapOffset;
    for (let i = 0; i < count; i += 1) {
      const offset = view.getUint32(at, true);
      const length = view.getUint32(at + 4, true);
      heap.set(encoded.subarray(at + 8, at + 8 + length), offset);
      at += 8 + length;
    }
    if (at !== encoded.length) throw new Error("the Python snapshot is damaged");
  }

  async function startPython() {
    // When Python is up, or has failed, no download in flight may report progress any more.
    const stop = new AbortController();
    try {
      return await restorePython(stop.signal);
    } finally {
      stop.abort();
    }
  }

  async function restorePython(stopped) {
    if (typeof WebAssembly !== "object") throw new Error("this browser does not support WebAssembly");
    const indexURL = new URL(config.indexURL, document.baseURI).href;
    const realFetch = globalThis.fetch;
    // Over http the binaries are fetched as themselves; from a folder (file://) they come as
    // scripts; the single-file book has every script inline already. The stdlib zip waits until
    // the labs are live (see later()).
    const inline = config.scripts.length === 0;
    const fetching = !inline && location.protocol !== "file:";
    const stdlibScript = `${config.indexURL}${runtime.stdlib}.js`;
    const scripts = inline ? [] : fetching ? runtime.code : config.scripts.filter((src) => src !== stdlibScript);
    const binaries = [runtime.wasm, runtime.snapshot, runtime.wheel];
    const paths = [...scripts, ...(fetching ? binaries.map((name) => config.indexURL + name) : [])];
    const total = paths.reduce((sum, path) => sum + runtime.sizes[path], 0);
    let loaded = 0;
    let shown = 0;
    const downloading = (force) => {
      if (stopped.aborted || total === 0) return; // stopped, or inline: nothing to load
      if (!force && performance.now() - shown < 100) return;
      shown = performance.now();
      const mb = (bytes) => (bytes / 1e6).toFixed(1);
      say(`Loading Python: ${mb(loaded)} of ${mb(total)} MB…`);
      progress("downloading", loaded, total);
    };
    downloading(true);

    const failure = (name) => new Error(`could not load ${config.indexURL}${name}`);
    async function open(name) {
      const response = await realFetch(new URL(name, indexURL), { signal: stopped }).catch(() => {
        throw failure(name);
      });
      if (!response.ok) throw failure(name);
      return response;
    }
    // Into one buffer of the size the build recorded: no list of chunks to join and collect.
    async function read(name, body) {
      const bytes = new Uint8Array(runtime.sizes[config.indexURL + name]);
      let at = 0;
      for (const reader = body.getReader(); ; ) {
        const { done, value } = await reader.read().catch(() => {
          throw failure(name);
        });
        if (done) break;
        if (at + value.length > bytes.length) throw failure(name); // not the file this page was built with
        bytes.set(value, at);
        at += value.length;
        loaded += value.length;
        downloading(false);
      }
      if (at !== bytes.length) throw failure(name);
      return bytes;
    }
    const loading = new Map(
      scripts.map((src) => [
        src,
        loadScript(src).then(() => {
          loaded += runtime.sizes[src];
          downloading(false);
        }),
      ]),
    );
    // Nothing at start-up reads the stdlib zip: every module the labs use is in the snapshot. It
    // serves a later import of some other module and the source lines of tracebacks, so it comes
    // once the labs are live, off the critical path. Until then Pyodide has an empty file there,
    // which zipimport reads as "no zip" and does not cache (the build checks all this).
    function later(pyodide) {
      const data = fetching
        ? realFetch(new URL(runtime.stdlib, indexURL)).then((response) =>
            response.ok ? response.arrayBuffer() : Promise.reject(failure(runtime.stdlib)),
          )
        : (inline ? Promise.resolve() : loadScript(stdlibScript)).then(() => asset(runtime.stdlib));
      // If it cannot be loaded, tracebacks lack source lines; the labs do not need it.
      data.then((bytes) => pyodide.FS.writeFile(runtime.stdlibPath, new Uint8Array(bytes)), () => {});
    }

    // Each binary as soon as it is here, so decoding and compiling overlap the other downloads.
    const bytes = (name) =>
      fetching
        ? open(name).then((response) => read(name, response.body))
        : (loading.get(`${config.indexURL}${name}.js`) ?? Promise.resolve()).then(() => asset(name));
    // (Compiling while downloading, with compileStreaming on a tee of the response, measured slower
    // here: see docs/performance.md.)
    const wasm = bytes(runtime.wasm);
    const compiled = wasm.then((code) => WebAssembly.compile(code));
    // Pyodide needs the snapshot's size before it instantiates, its bytes only after: it gets this
    // buffer now and the bytes are written into it while Pyodide sets itself up.
    const snapshot = new Uint8Array(runtime.snapshotSize);
    const restored = Promise.all([bytes(runtime.snapshot), wasm]).then(([encoded, code]) =>
      snapshotImage(snapshot, encoded, code),
    );
    const wheel = bytes(runtime.wheel);
    const everything = Promise.all([compiled, restored, wheel, ...loading.values()]).then(() => {
      performance.mark("kvpage:assets-decoded");
      downloading(true);
      say("Starting Python…");
      progress("starting", loaded, total);
    });
    everything.catch(() => {}); // its failure is reported below, by the race with Pyodide
    // pyodide.js and pyodide.asm.js define loadPyodide and the module Pyodide sets up next.
    await Promise.all(runtime.code.map((src) => loading.get(src)).filter(Boolean));

    // Pyodide fetches the wasm and the stdlib from indexURL: answer from memory, and hand the
    // module compiled above to its instantiateStreaming instead of compiling the wasm again.
    const wasmURL = new URL(runtime.wasm, indexURL).href;
    const stdlibURL = new URL(runtime.stdlib, indexURL).href;
    const answered = new WeakSet();
    const realInstantiateStreaming = WebAssembly.instantiateStreaming;
    globalThis.fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url === wasmURL) {
        const response = Promise.resolve(new Response(new Uint8Array(0)));
        answered.add(response);
        return response;
      }
      if (url === stdlibURL) return Promise.resolve(new Response(new Uint8Array(0))); // see later()
      return realFetch.call(globalThis, input, init);
    };
    WebAssembly.instantiateStreaming = (source, imports) =>
      answered.has(source)
        ? compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module })))
        : realInstantiateStreaming.call(WebAssembly, source, imports);
    try {
      const started = globalThis.loadPyodide({
        indexURL,
        // Pyodide restores the snapshot as soon as this resolves: not before its bytes are in.
        createPyodideModule: async (settings) => {
          const module = await globalThis._createPyodideModule(settings);
          await restored;
          return module;
        },
        lockFileContents: config.lock,
        packageBaseUrl: indexURL,
        stdLibURL: stdlibURL,
        env: { ...runtime.env },
        // The snapshot imports kvpage from its wheel, with zipimport, at this path.
        fsInit: async (FS) => {
          FS.mkdirTree(runtime.wheelPath.slice(0, runtime.wheelPath.lastIndexOf("/")));
          FS.writeFile(runtime.wheelPath, await wheel);
        },
        _loadSnapshot: snapshot,
        stdout: () => {},
      });
      // Pyodide waits forever on a wasm that fails to compile: fail with our reason instead.
      const pyodide = await Promise.race([started, everything.then(() => started)]);
      if (pyodide.version !== runtime.pyodide) {
        throw new Error(`Pyodide ${pyodide.version} started, but the snapshot is for ${runtime.pyodide}`);
      }
      // Pyodide keeps its options, so the 31 MB image would stay alive: it is in wasm memory now.
      snapshot.buffer.transfer?.(0);
      setTimeout(() => later(pyodide), 0);
      return pyodide;
    } finally {
      globalThis.fetch = realFetch;
      WebAssembly.instantiateStreaming = realInstantiateStreaming;
    }
  }
  // ---- end of loader ----

  startPython().then(
    (pyodide) => {
      performance.mark("kvpage:python-started");
      globalThis.kvpageLabs.start(pyodide); // static/labs.js: wires every lab to Python
      say("Live: these numbers are computed by kvpage's Python model, running in your browser.");
      document.documentElement.dataset.python = "ready";
      performance.mark("kvpage:labs-live");
      progress("ready");
    },
    (error) => {
      say(`The labs could not start (${error.message}); the numbers shown were computed when this page was built.`);
      document.documentElement.dataset.python = "failed";
      progress("failed");
    },
  );
})();
