// The decode lab's own script (kvpage/labs/decode.py): the Generate timer and the step slider; the
// page draws everything else from each view (static/kvpage/lab.js). A button that cannot act is
// aria-disabled, not disabled, so the focus stays on it (decision 0053 for the step it keeps).
"use strict";

(() => {
  // How many tokens the run generates: the tokens control's value (the view's state does not repeat it).
  /** @param {HTMLElement} section */
  function tokensOf(section) {
    return Number(/** @type {HTMLInputElement} */ (section.querySelector("[data-control=tokens]")).value);
  }

  // The step slider, the run's linked state ("steps"): it shows the run's step after each view (its
  // end the tokens control's value), and asks for the view at the step the reader moved it to, as a
  // link to it would (lab.restore); only the last position waits while a call is out. `moved` runs first.
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

  // Generate takes a step, and the next once Python has answered, until the run is done (the model's
  // state.done; all at once under reduced motion, by "finish"); running, it reads "Pause". Idle and
  // done, it is aria-disabled and ignores activation: a keyboard reader whose run just ended keeps the
  // focus and the next Enter does nothing (a disabled button would drop the focus where the browser
  // put it, once on Reset). A control disabled under the focus hands it to the step slider. The
  // region is aria-busy while a run goes on or a step is answered, so its summary is read once.
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
