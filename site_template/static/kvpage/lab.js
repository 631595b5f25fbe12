// Stage "lab": one lab on the page, wired from its schema: its controls call Python through its call
// queue (calls.js), each reply's view is drawn over what the build printed (texts only if changed,
// trees by draw.js), the summary is announced once an answer is settled, and a failure leaves the
// controls and state where the reader had them. A lab's own script gets handle() (decision 0060).

import { TEXT_KINDS } from "./contract.js";
import { CallQueue } from "./calls.js";
import { controlsOf, markInvalid, resetControls, setValues, showValue, values } from "./controls.js";
import { renderTree } from "./draw.js";
import { formatFragment, formatLab, linkNote } from "./links.js";
import { copyLink } from "./url.js";
import { sayIn, setText, showError, showNote } from "./says.js";

export const LIVE = "Live: these numbers are computed by kvpage's Python model, running in your browser.";
const STILL_WORKING = "Python is still working on this…";
const LINKED = "Python has not started yet: the controls show this link's values, and their numbers appear once it runs.";

/** A link's values for a lab (stage "links"). @typedef {{controls: Record<string, ControlValue>, state: Record<string, unknown>, problems: string[]}} LinkRead */

export class WiredLab {
  /**
   * @param {HTMLElement} section
   * @param {LabSchema} schema
   * @param {(request: string) => Promise<string>} call the pool's
   * @param {number} seconds the book's call_timeout
   * @param {string} key the lab's name in a link
   * @param {(settled: boolean) => void} drawn after each view drawn (settled: nothing more waits)
   * @param {LabModule} script the lab's own script, if it registered one
   */
  constructor(section, schema, call, seconds, key, drawn, script) {
    this.section = section;
    this.schema = schema;
    this.key = key;
    this.drawn = drawn;
    this.name = schema.name;
    this.script = script;
    const names = (/** @type {(output: OutputSchema) => boolean} */ test) => schema.outputs.filter(test).map((output) => output.name);
    this.texts = names((output) => TEXT_KINDS.includes(output.kind));
    this.trees = names((output) => !TEXT_KINDS.includes(output.kind));
    this.summaries = names((output) => output.kind === "summary");
    /** @type {((ok: boolean) => void)[]} hooks: after each view (or failure) drawn */
    this.updated = [];
    /** @type {(() => void)[]} hooks: before an input or a button's action */
    this.before = [];
    /** @type {(() => void)[]} hooks: once Python is live */
    this.liveHooks = [];
    /** @type {any} the state of the last view (decode's run), as the next call carries it */
    this.state = section.dataset.state === undefined ? undefined : JSON.parse(section.dataset.state);
    /** @type {LabView | null} the last view drawn, once Python has answered */
    this.view = null;
    /** @type {{state: Record<string, unknown>, problems: string[]} | null} a link opened before Python was live */
    this.linkWaiting = null;
    this.isLive = false;
    this.calls = new CallQueue(schema, call, seconds, {
      values: () => values(section, schema),
      state: () => this.state,
      draw: (reply, paced) => this.render(reply, paced),
      note: (text) => showNote(section, text),
      waiting: (slow) => sayIn(section, slow ? STILL_WORKING : LIVE),
    });
    resetControls(section, schema);
    this.started = { controls: values(section, schema), state: this.state };
    this.startPart = this.part();
    this.heading = section.getAttribute("aria-labelledby") ?? "";
    /** @type {[Element, Node[]][]} what the build showed, to put back if Python cannot start after a link */
    this.outputs = [...section.querySelectorAll("[data-field], [data-part]")].map((element) => [
      element,
      [...element.childNodes].map((node) => node.cloneNode(true)),
    ]);
    this.lab = this.handle();
  }

  /** @param {"field" | "part"} kind @param {string} name */
  outputsOf(kind, name) {
    return this.section.querySelectorAll(`[data-${kind}="${name}"]`);
  }

  /** This lab's segment of a link. */
  part() {
    return formatLab(this.key, this.schema, values(this.section, this.schema), this.linkWaiting?.state ?? this.calls.linkedOf(this.state));
  }

  link() {
    return `${location.href.split("#")[0]}#${formatFragment(encodeURIComponent(this.heading), [this.part()])}`;
  }

  showLink() {
    setText(this.section.querySelector("[data-role=address]"), this.link());
  }

  changed() {
    return this.part() !== this.startPart;
  }

  /** No numbers: "—" in the texts, the trees empty (a failed call, or a link's values before Python). */
  blankOutputs() {
    for (const field of this.texts) {
      const blank = this.summaries.includes(field) ? "" : "—"; // the error (an alert) says what happened
      for (const element of this.outputsOf("field", field)) setText(element, blank);
    }
    for (const tree of this.trees) for (const element of this.outputsOf("part", tree)) element.replaceChildren();
  }

  /** A reply drawn; `paced`, a view a lab's script stepped to (Generate's). @param {LabReply} reply @returns {boolean} */
  render(reply, paced = false) {
    setText(this.section.querySelector("[data-role=copied]"), "");
    if (!reply.ok) {
      showError(this.section, reply.error, reply.traceback, reply.error.startsWith("the model"));
      // The reader is told what happened and that their values are kept; the author's advice: the console.
      if (reply.advice) console.warn(`kvpage lab ${this.section.dataset.lab}: ${reply.advice}`);
      this.blankOutputs();
    } else {
      try {
        for (const tree of this.trees) {
          for (const element of this.outputsOf("part", tree)) renderTree(element, reply.result.parts[tree]);
        }
      } catch (error) {
        const advice = error instanceof Error ? error.message : String(error);
        return this.render({ ok: false, error: "the model's drawing could not be shown", advice }, paced);
      }
      this.drawTexts(reply.result);
    }
    markInvalid(this.section, this.schema, reply.ok);
    for (const hook of this.updated) hook(reply.ok);
    if (reply.ok) this.announce();
    this.showLink();
    this.drawn(!paced && this.calls.settled());
    return reply.ok;
  }

  /** Every text of the view but the summary (announce), each rewritten only if it changed. @param {LabView} result */
  drawTexts(result) {
    showError(this.section, "");
    this.view = result;
    this.state = result.state;
    for (const field of this.texts) {
      if (this.summaries.includes(field)) continue;
      for (const element of this.outputsOf("field", field)) setText(element, result.text[field]);
    }
  }

  // The lab's summary (polite, atomic live regions: the one thing a screen reader is told of an
  // answer) from the last view, once it is the answer the reader waits for: nothing more on the way
  // and the lab's script not stepping a run (its region aria-busy). Unchanged, it is not said again.
  announce() {
    if (this.view === null || !this.calls.settled() || this.section.getAttribute("aria-busy") === "true") return;
    for (const field of this.summaries) {
      for (const element of this.outputsOf("field", field)) setText(element, this.view.text[field]);
    }
  }

  /** What the build showed, back on the page: controls, state and outputs. */
  putBack() {
    this.state = this.started.state;
    this.view = null;
    this.linkWaiting = null;
    setValues(this.section, this.schema, this.started.controls);
    for (const [element, nodes] of this.outputs) element.replaceChildren(...nodes.map((node) => node.cloneNode(true)));
    this.showLink();
  }

  /**
   * A link's values for this lab; `others`, the link's problems this lab tells (labs the page lacks).
   * @param {LinkRead} read @param {string[]} [others] @returns {boolean} whether it gave the lab anything
   */
  follow(read, others = []) {
    const problems = [...read.problems, ...others];
    showNote(this.section, linkNote(problems));
    if (Object.keys(read.controls).length === 0 && Object.keys(read.state).length === 0) return false;
    setValues(this.section, this.schema, read.controls);
    if (this.isLive) {
      for (const hook of this.before) hook(); // a running Generate stops first (before Python, nothing runs)
      this.calls.resume(read.state, this.state, problems);
    } else {
      this.linkWaiting = { state: { ...this.calls.linkedOf(this.started.state), ...read.state }, problems };
      this.blankOutputs();
      showNote(this.section, [LINKED, linkNote(problems)].filter(Boolean).join(" "));
    }
    this.showLink();
    return true;
  }

  /** The handle a lab's own script gets. @returns {LabHandle} */
  handle() {
    return {
      state: () => this.state,
      view: () => this.view,
      run: (action) => this.calls.request(action, true),
      busy: () => this.calls.busy(),
      onUpdate: (hook) => this.updated.push(hook),
      beforeAction: (hook) => this.before.push(hook),
      onLive: (hook) => (this.isLive ? hook() : this.liveHooks.push(hook)),
      debounce: (ms) => {
        this.calls.wait = ms;
      },
      // The lab as plain JSON (its controls and its linked state), and back: what a link carries.
      saved: () => ({ controls: values(this.section, this.schema), state: this.linkWaiting?.state ?? this.calls.linkedOf(this.state) }),
      restore: (saved) => {
        setValues(this.section, this.schema, saved.controls ?? {});
        this.calls.resume(saved.state ?? {}, this.state, []);
      },
      link: () => this.link(),
      announce: () => this.announce(),
    };
  }

  /** Its controls, buttons and Copy link connected, and its own script started. */
  wire() {
    for (const control of this.schema.controls) {
      for (const element of controlsOf(this.section, control)) {
        element.addEventListener("input", () => {
          for (const hook of this.before) hook();
          showValue(this.section, element);
          this.calls.input(control.name);
        });
      }
    }
    for (const button of this.schema.buttons) {
      if (!button.calls) continue; // the lab's own script handles it
      this.section.querySelector(`[data-action="${button.name}"]`)?.addEventListener("click", (event) => {
        // A button the lab's script marked aria-disabled (decode's Forward on a finished run) keeps
        // the focus, and so its clicks: they do nothing.
        if (/** @type {HTMLElement} */ (event.currentTarget).getAttribute("aria-disabled") === "true") return;
        for (const hook of this.before) hook();
        this.calls.request(button.calls);
      });
    }
    const field = /** @type {HTMLInputElement} */ (this.section.querySelector("[data-role=link]"));
    const status = /** @type {HTMLElement} */ (this.section.querySelector("[data-role=copied]"));
    this.section.querySelector("[data-role=copy]")?.addEventListener("click", () => copyLink(field, status, this.link()));
    this.showLink();
    try {
      this.script.start?.(this.section, this.lab);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      showError(this.section, `this lab's script failed: ${failure.message}`, failure.stack);
    }
    return this;
  }

  /** Python is live: the controls enabled, and a link opened before it followed. */
  live() {
    this.isLive = true;
    const controls = /** @type {NodeListOf<HTMLInputElement | HTMLButtonElement>} */ (
      this.section.querySelectorAll("[data-control], [data-action]")
    );
    for (const element of controls) element.disabled = false;
    sayIn(this.section, LIVE);
    for (const hook of this.liveHooks.splice(0)) hook();
    if (this.linkWaiting !== null) {
      const { state: linked, problems } = this.linkWaiting;
      this.linkWaiting = null;
      showNote(this.section, linkNote(problems));
      this.calls.resume(linked, this.state, problems);
    }
  }

  /** Python could not start: the build's numbers stay (a link's values put back), and the lab says why. @param {Error} error */
  failed(error) {
    const linked = this.linkWaiting;
    if (linked !== null) {
      showNote(this.section, linkNote(linked.problems));
      this.putBack();
    }
    const numbers = linked
      ? "this link's values need Python, so the lab shows the numbers computed when this page was built"
      : "the numbers shown were computed when this page was built";
    sayIn(this.section, `The labs could not start (${error.message}); ${numbers}.`);
  }

  /**
   * What a reader's Run computes for this lab (stage "reader"): the view at its values and state now
   * (its resume action with the state a link would carry), and the outputs that view must have.
   * @returns {import("./protocol.js").ReaderLab}
   */
  reading() {
    for (const hook of this.before) hook(); // a running Generate stops first
    const resume = this.schema.resume;
    const state = resume ? this.calls.linkedOf(this.state) : this.state;
    const given = values(this.section, this.schema);
    const args = state === undefined ? given : { ...given, state };
    const action = resume || this.schema.update;
    return { request: JSON.stringify({ lab: this.name, action, args }), texts: this.texts, parts: this.trees };
  }

  /** Resolves once the lab has no call out and none waiting. */
  idle() {
    return this.calls.idle();
  }

  /** The view a reader's Run computed for this lab (the reply's text), drawn like any other. @param {string} text */
  shown(text) {
    this.render(JSON.parse(text));
  }

  /** A new model is in (serve): the lab computed again at its values and state. */
  refresh() {
    if (this.isLive) this.calls.request();
  }
}
