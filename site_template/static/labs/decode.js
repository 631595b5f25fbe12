// The decode lab's own script: the Generate timer. Registered by name ("decode",
// kvpage/labs/decode.py); its controls, readouts, pictures, Step and Reset are the page's, drawn
// from each view Python returns (static/kvpage/labs.js).
//
// Generate takes a step, and the next one once Python has answered, until the run is done (all at
// once under reduced motion, by the model's "finish"); while it runs the button reads "Pause".
// Idle, it reads "Generate" and is disabled once the run is done. Focus never stays on a button
// that just got disabled. The lab's region is aria-busy while a run goes on or a step is still
// being answered (a step asked for before Pause is still drawn), so its readouts are read once.
"use strict";

(() => {
  function start(section, lab) {
    /** @type {(name: string) => HTMLButtonElement} */
    const button = (name) => section.querySelector(`[data-action=${name}]`);
    const calm = matchMedia("(prefers-reduced-motion: reduce)");
    let running = false;
    let timer = null;
    let live = false; // until Python is live the page keeps every button disabled (a link is followed before)
    const done = () => {
      const state = lab.state();
      return state.steps >= state.tokens;
    };

    function showButtons() {
      if (!live) return;
      const generate = button("generate");
      generate.textContent = running ? "Pause" : "Generate";
      generate.disabled = done() && !running;
      button("step").disabled = done();
      section.setAttribute("aria-busy", String(running || lab.busy()));
      const focused = /** @type {HTMLButtonElement | null} */ (document.activeElement);
      if (focused && focused.disabled && section.contains(focused)) button("reset").focus();
    }
    function stop() {
      running = false;
      clearTimeout(timer);
      timer = null;
    }
    // A step every so often, the whole run in about 2.4 s, however many tokens it has.
    const pause = () => Math.max(40, Math.min(150, 2400 / lab.state().tokens));

    lab.onLive(() => {
      live = true;
      showButtons();
    });
    lab.onUpdate((ok) => {
      if (running && (!ok || done())) stop();
      if (running) timer = setTimeout(() => lab.run("step"), pause());
      showButtons();
    });
    lab.beforeAction(() => {
      stop(); // any input, Step or Reset stops a running Generate first
      showButtons();
    });
    button("generate").addEventListener("click", () => {
      if (running) {
        stop();
        showButtons();
      } else if (calm.matches) {
        lab.run("finish");
      } else if (!done()) {
        running = true;
        showButtons();
        lab.run("step");
      }
    });
  }

  globalThis.kvpageLabs.register("decode", { start });
})();
