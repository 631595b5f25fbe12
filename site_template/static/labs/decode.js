// The decode lab's own script: the Generate timer and the step slider. Registered by name ("decode",
// kvpage/labs/decode.py); its controls, readouts, pictures, Step and Reset are the page's, drawn
// from each view Python returns (static/kvpage/labs.js).
//
// Generate takes a step, and the next one once Python has answered, until the run is done (all at
// once under reduced motion, by the model's "finish"); while it runs the button reads "Pause".
// Idle, it reads "Generate" and cannot act once the run is done. A button that cannot act is
// aria-disabled, not disabled, and ignores activation: it keeps the focus, so a keyboard reader
// whose run just ended stays on Generate (or Forward) and the next Enter does nothing; a disabled
// one would drop the focus, and the next Enter would land wherever the browser put it (once Reset,
// which wiped the run). Should a control of the lab still get disabled under the focus, the focus
// goes to the step slider, which moves the run either way. The lab's region is aria-busy while a
// run goes on or a step is still being answered (a step asked for before Pause is still drawn), so
// its summary is read once.
//
// The step slider is the run's linked state ("steps"): moving it asks for the view at that step, as
// a link to it would (lab.restore, the resume action); while a call is out, only the last position
// waits. Each view sets it back to the run's steps (the view's state) and its end to the tokens
// control's value, so Back, Forward, Generate and a link move it too. Whether the run is done is the
// model's (the view's state.done), never counted here. Forward (the "step" action) cannot act on a
// finished run; Back on a cold run leaves it as it is (the model's back), like any button a reader
// may press at any time. Back is disabled at step 0 (the view's state.steps): there is nothing to go
// back to, and a disabled Back under the focus hands it to the step slider.
"use strict";

(() => {
  // How many tokens the run generates: the tokens control's value (the view's state does not repeat it).
  /** @param {HTMLElement} section */
  function tokensOf(section) {
    return Number(/** @type {HTMLInputElement} */ (section.querySelector("[data-control=tokens]")).value);
  }

  // The step slider: it shows the run's step after each view, and asks for the view at the step the
  // reader moved it to (only the last position waits while a call is out). `moved` runs first.
  /** @param {HTMLElement} section @param {LabHandle} lab @param {() => void} moved */
  function stepSlider(section, lab, moved) {
    const slider = /** @type {HTMLInputElement} */ (section.querySelector("[data-linked=steps]"));
    const sliderValue = /** @type {HTMLElement} */ (section.querySelector(`[data-shows="${slider.id}"]`));
    /** @type {number | null} */
    let wanted = null; // a step the slider asked for while a call was out
    function goTo() {
      const steps = wanted;
      wanted = null;
      lab.restore({ state: { steps } });
    }
    slider.addEventListener("input", () => {
      moved();
      wanted = Number(slider.value);
      sliderValue.textContent = slider.value;
      if (!lab.busy()) goTo();
    });
    return {
      enable() {
        slider.disabled = false;
      },
      focus() {
        slider.focus();
      },
      // After a view: ask for the step still wanted (true), or show the run's own step (false).
      settle() {
        if (wanted !== null && !lab.busy()) {
          goTo();
          return true;
        }
        if (wanted !== null) return false;
        const steps = String(lab.state().steps);
        slider.max = String(tokensOf(section));
        slider.value = steps;
        sliderValue.textContent = steps;
        slider.setAttribute("aria-valuetext", section.querySelector("[data-field=progress]")?.textContent ?? steps);
        return false;
      },
    };
  }

  const calm = matchMedia("(prefers-reduced-motion: reduce)"); // read at each Generate: it may change

  /** @param {HTMLElement} section @param {LabHandle} lab */
  function start(section, lab) {
    /** @type {(name: string) => HTMLButtonElement} */
    const button = (name) => /** @type {HTMLButtonElement} */ (section.querySelector(`[data-action=${name}]`));
    let running = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let live = false; // until Python is live the page keeps every button disabled (a link is followed before)
    const done = () => lab.state().done === true;

    function showButtons() {
      if (!live) return;
      const generate = button("generate");
      generate.textContent = running ? "Pause" : "Generate";
      generate.setAttribute("aria-disabled", String(done() && !running));
      button("step").setAttribute("aria-disabled", String(done()));
      button("back").disabled = lab.state().steps === 0;
      slider.enable();
      section.setAttribute("aria-busy", String(running || lab.busy()));
      const focused = /** @type {HTMLButtonElement | null} */ (document.activeElement);
      if (focused && focused.disabled && section.contains(focused)) slider.focus();
    }
    function stop() {
      running = false;
      clearTimeout(timer);
      timer = undefined;
    }
    const halt = () => {
      stop();
      showButtons();
    };
    // A step every so often, the whole run in about 2.4 s, however many tokens it has.
    const pause = () => Math.max(40, Math.min(150, 2400 / tokensOf(section)));

    const slider = stepSlider(section, lab, halt);
    lab.onLive(() => {
      live = true;
      showButtons();
    });
    lab.onUpdate((/** @type {boolean} */ ok) => {
      if (slider.settle()) return;
      if (running && (!ok || done())) stop();
      if (running) timer = setTimeout(() => lab.run("step"), pause());
      showButtons();
    });
    lab.beforeAction(halt); // any input, Step or Reset stops a running Generate first
    button("generate").addEventListener("click", (event) => {
      if (/** @type {HTMLElement} */ (event.currentTarget).getAttribute("aria-disabled") === "true") return;
      if (running) {
        halt();
        lab.announce(); // where Pause left the run (once its last step is answered, if one is out)
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
