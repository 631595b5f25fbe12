// Stage "boot": start Python, report progress, hand the started Python to stage "labs".
//
// Python is not started here, it is restored: the build ran Pyodide once with kvpage imported and
// shipped its memory (sitegen/python_snapshot.py), as a patch over the wasm's data segments
// (stage "image"). Each binary is decoded and the wasm compiled as soon as it is here (stage
// "assets"), and Pyodide sets itself up meanwhile; its own requests are answered from memory
// (stage "hooks"). Progress goes to `document` as "kvpage:progress" events, {phase: "downloading"
// | "starting" | "ready" | "failed", loaded, total} in bytes (of what the labs wait for), and to
// say(). Measured: docs/performance.md.
//
// This relies on private Pyodide API (_loadSnapshot, the instantiateStreaming call, the snapshot
// layout): the build refuses any Pyodide but the one it was written for (PYODIDE_VERSION in
// sitegen/python_snapshot.py), and the page checks the version it started.

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
  let loaded = 0;
  let shown = 0;
  const loader = openAssets(stopped, (bytes) => {
    loaded += bytes;
    downloading(false);
  });
  function downloading(force) {
    const total = loader.total;
    if (stopped.aborted || total === 0) return; // stopped, or inline: nothing to load
    if (!force && performance.now() - shown < 100) return;
    shown = performance.now();
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    say(`Loading Python: ${mb(loaded)} of ${mb(total)} MB…`);
    progress("downloading", loaded, total);
  }
  downloading(true);

  // (Compiling while downloading, with compileStreaming on a tee of the response, measured slower
  // here: see docs/performance.md.)
  const wasm = loader.bytes(runtime.wasm);
  const compiled = wasm.then((code) => WebAssembly.compile(code));
  // Pyodide needs the snapshot's size before it instantiates, its bytes only after: it gets this
  // buffer now and the bytes are written into it while Pyodide sets itself up.
  const snapshot = new Uint8Array(runtime.snapshotSize);
  const restored = Promise.all([loader.bytes(runtime.snapshot), wasm]).then(([encoded, code]) =>
    snapshotImage(snapshot, encoded, code),
  );
  const wheel = loader.bytes(runtime.wheel);
  const everything = Promise.all([compiled, restored, wheel, loader.scripts]).then(() => {
    performance.mark("kvpage:assets-decoded");
    downloading(true);
    say("Starting Python…");
    progress("starting", loaded, loader.total);
  });
  everything.catch(() => {}); // its failure is reported below, by the race with Pyodide
  // pyodide.js and pyodide.asm.js define loadPyodide and the module Pyodide sets up next.
  await loader.code;

  const stdlibURL = new URL(runtime.stdlib, indexURL).href;
  const unhook = interceptPyodide(new URL(runtime.wasm, indexURL).href, stdlibURL, compiled);
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
    return pyodide;
  } finally {
    unhook();
  }
}
// ---- end of loader ----

// What every loader (this one, or bench's stock one) reports through: the page's runtime line
// and the "kvpage:progress" events.
function say(text) {
  for (const line of document.querySelectorAll("[data-role=runtime]")) line.textContent = text;
}

let lastProgress = { loaded: 0, total: 0 };
function progress(phase, loaded = lastProgress.loaded, total = lastProgress.total) {
  lastProgress = { loaded, total };
  document.dispatchEvent(new CustomEvent("kvpage:progress", { detail: { phase, loaded, total } }));
}

// The hand-over to stage "labs", its whole interface: startLabs(pyodide) once Python is up (it
// may throw), labsFailed(error) if Python, or startLabs, failed. The page's state after that
// (data-python, the marks, the last progress event) is boot's.
startPython()
  .then((pyodide) => {
    performance.mark("kvpage:python-started");
    startLabs(pyodide);
    document.documentElement.dataset.python = "ready";
    performance.mark("kvpage:labs-live");
    progress("ready");
  })
  .catch((error) => {
    labsFailed(error);
    document.documentElement.dataset.python = "failed";
    progress("failed");
  });
