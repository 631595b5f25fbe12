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
// one), a button calls its action the same way, and each reply's view replaces the texts (each
// only if it changed) and the trees. Nothing of that is live for screen readers: the lab's summary
// (outputs of kind "summary", a polite, atomic status) says what the answer changed, once the
// answer is settled (announce). A lab has at most one call out at a time; the arguments are read from the controls when a
// call goes, so a click is never lost and a run moves on from the last answer. Answers come in the
// order the calls went, and an update's answer is dropped, never drawn, when the reader has changed
// a control since (another update waits): the page never shows numbers for inputs it no longer has.
// A refusal or a model failure comes back as a value and is shown in the lab, the model's traceback
// goes to the console; a call that takes longer than the book's call_timeout is stopped (its worker
// terminated, stage "python") and says so in the lab the same way. Every failure (a refusal, an
// exception, a view the page cannot read or draw, a time-out) leaves the controls, the lab's state
// and so its link where the reader had them: at a value the build's sweep never tried, the reader
// sees why, and the next move is computed from there.
//
// Each lab's state is also a part of the page's URL fragment (stage "links" has its format): a
// link opened shows its values in the controls at once, and their view once Python is live (the
// schema's resume action builds it from the controls and the linked state); until then the
// readouts show "—", not the build's numbers for other values, and if Python cannot start the lab
// goes back to what the build showed, and says so. As the reader explores, the fragment follows
// (history.replaceState: no history entry per step), naming each lab that differs from how the
// page started. The answer to the reader's own input, once nothing else waits (no call out or
// queued, no typing still debounced), is in the URL the moment it is drawn: a reload or a bookmark
// right after it keeps it (written WRITE_MS later, a reload in WebKit's flow got a request half
// typed). Views a lab's script steps through (Generate), and those drawn while more input waits,
// follow within WRITE_MS. Browsers refuse a flood of replaceState (Safari throws past 100 in 30 s;
// Chromium ignores past 200 in 10 s, with only a console warning): the writes stay under both,
// WRITES_AT_ONCE at once and then one every WRITE_EVERY_MS, and a write that must wait or was
// refused goes later, never lost. A field of a link that does not fit is left out, with a quiet
// note in the lab; "Copy link" copies one lab's link, or selects it for the reader.
//
// A lab that needs more (a timer, keys) registers a small script of its own by its name:
//   kvpageLabs.register(NAME, { start(section, lab) })
// `start` runs once, before Python is live, with the handle `lab` below.

import { TEXT_KINDS, textLength } from "./contract.js";
import { renderTree } from "./draw.js";
import { decodeId, formatFragment, formatLab, linkKeys, linkNote, parseFragment, quoted, readLab, unknownLabs } from "./links.js";

const LIVE = "Live: these numbers are computed by kvpage's Python model, running in your browser.";
const STILL_WORKING = "Python is still working on this…";
const SLOW_MS = 1000; // after this long without an answer, the lab says it is still waiting
const WRITE_MS = 200; // the URL follows a lab still busy (or a script's steps) at most this often
const WRITES_AT_ONCE = 10; // URL writes the page may make in a burst,
const WRITE_EVERY_MS = 350; // and then one this often: 10 + 30 s / 350 ms = 95, under Safari's 100 in 30 s
const REFUSED_MS = 1000; // a replaceState the browser refused is tried again after this long
const LINKED = "Python has not started yet: the controls show this link's values, and their numbers appear once it runs.";
const COPIED = "Link copied.";
const COPY_BY_HAND = "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.";
const labModules = new Map();
const labHandles = new WeakMap(); // section -> the handle below, for kvpageLabs.lab(section)

// `element`'s text set to `text` only if it differs: a live region (the runtime line, the error,
// the summary) rewritten with the same words is announced again by some screen readers.
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

const KEPT = "the lab keeps your values.";

// `kept`: a failure of the model, after which the lab says that the reader's values are kept.
function showError(section, message, traceback, kept = false) {
  const box = section.querySelector("[data-role=error]");
  setText(box, kept ? `${message}; ${KEPT}` : message);
  box.hidden = !message;
  if (traceback) console.error(`kvpage lab ${section.dataset.lab}: ${message}\n${traceback}`);
}

function sayIn(section, text) {
  for (const line of section.querySelectorAll("[data-role=runtime]")) setText(line, text);
}

function showNote(section, text) {
  const note = section.querySelector("[data-role=note]");
  note.textContent = text;
  note.hidden = !text;
}

function timeoutMessage(seconds) {
  return `The model took longer than ${seconds} s and was stopped; the lab keeps your values.`;
}

// One lab: `pool.call(request)` answers the JSON text kvpage.bridge.handle takes with the text it
// returns, or fails with {timedOut: true} (stage "python"). `key` names it in a link, and
// `drawn(settled)` is called after each view it draws: settled, the answer to the reader's input
// with nothing more waiting (the URL is written at once), else a view on the way (written soon).
// `wire()` connects its controls and starts its own script.
class WiredLab {
  /**
   * @param {HTMLElement} section
   * @param {any} schema
   * @param {import("./python.js").PythonPool} pool
   * @param {number} seconds
   * @param {string} key
   * @param {(settled: boolean) => void} drawn
   */
  constructor(section, schema, pool, seconds, key, drawn) {
    this.section = section;
    this.schema = schema;
    this.pool = pool;
    this.seconds = seconds;
    this.key = key;
    this.drawn = drawn;
    this.name = schema.name;
    this.script = labModules.get(this.name) ?? {}; // the lab's own script, if it registered one
    this.texts = schema.outputs.filter((output) => TEXT_KINDS.includes(output.kind)).map((output) => output.name);
    this.trees = schema.outputs.filter((output) => !TEXT_KINDS.includes(output.kind)).map((output) => output.name);
    this.summaries = schema.outputs.filter((output) => output.kind === "summary").map((output) => output.name);
    this.updated = []; // hooks: after each view (or failure) drawn
    this.before = []; // hooks: before an input or a button's action
    this.liveHooks = []; // hooks: once Python is live
    this.state = section.dataset.state === undefined ? undefined : JSON.parse(section.dataset.state);
    this.view = null; // the last view drawn, once Python has answered
    this.queue = []; // {action, state?}: calls waiting for the one out to come back
    this.linkWaiting = null; // {state, problems}: a link's linked state and notes, opened before Python was live
    this.out = null; // the action of the call out
    this.wait = 0; // the debounce of inputs, in ms (lab.debounce)
    this.pending = null; // the debounced update's timer, until it goes
    this.idlers = []; // resolves of idle(): called once no call is out and none waits
    this.isLive = false;
    this.resetControls();
    this.started = { controls: this.values(), state: this.state };
    this.startPart = this.part();
    this.heading = section.getAttribute("aria-labelledby") ?? "";
    // What the build showed, to put back if Python cannot start after a link set other values.
    /** @type {[Element, Node[]][]} */
    this.outputs = [...section.querySelectorAll("[data-field], [data-part]")].map((element) => [
      element,
      [...element.childNodes].map((node) => node.cloneNode(true)),
    ]);
    this.lab = this.handle();
  }

  /** @returns {HTMLInputElement[]} the elements of the control (several for a radio group) */
  controlsOf(control) {
    return [.../** @type {NodeListOf<HTMLInputElement>} */ (this.section.querySelectorAll(`[data-control="${control.name}"]`))];
  }

  outputsOf(kind, name) {
    return this.section.querySelectorAll(`[data-${kind}="${name}"]`);
  }

  // Every control's value, by name, as its kind: numbers for sliders and number boxes, true/false
  // for a checkbox, the checked option of a radio group, the text of a text box.
  values() {
    const found = {};
    for (const control of this.schema.controls) {
      const elements = this.controlsOf(control);
      if (control.kind === "choice") found[control.name] = elements.find((element) => element.checked)?.value;
      else if (control.kind === "checkbox") found[control.name] = elements[0].checked;
      else if (control.kind === "slider" || control.kind === "number") found[control.name] = Number(elements[0].value);
      else found[control.name] = elements[0].value;
    }
    return found;
  }

  setValues(given) {
    for (const control of this.schema.controls) {
      if (!(control.name in given)) continue;
      const value = given[control.name];
      for (const element of this.controlsOf(control)) {
        if (control.kind === "choice") element.checked = element.value === value;
        else if (control.kind === "checkbox") element.checked = Boolean(value);
        else element.value = String(value);
        this.showValue(element);
      }
    }
  }

  // A slider's value in the readout beside it ([data-shows=ID]), if it has one, with a decimal
  // slider's places ([data-places]: 1.10 for a step of 0.05, as the build printed it).
  showValue(element) {
    const readout = /** @type {HTMLElement | null} */ (
      element.id && this.section.querySelector(`[data-shows="${element.id}"]`)
    );
    if (!readout) return;
    const places = Number(readout.dataset.places || 0);
    readout.textContent = places ? Number(element.value).toFixed(places) : element.value;
  }

  // The controls as the build printed them: a browser may have put back what the reader had typed
  // before a reload, which the view on the page (the build's) does not show.
  resetControls() {
    for (const control of this.schema.controls) {
      for (const element of this.controlsOf(control)) {
        if (control.kind === "choice" || control.kind === "checkbox") element.checked = element.defaultChecked;
        else element.value = element.defaultValue;
        this.showValue(element);
      }
    }
  }

  linkedOf(given) {
    const linked = (this.schema.linked_state ?? []).filter((entry) => given?.[entry.name] !== undefined);
    return Object.fromEntries(linked.map((entry) => [entry.name, given[entry.name]]));
  }

  part() {
    return formatLab(this.key, this.schema, this.values(), this.linkWaiting?.state ?? this.linkedOf(this.state));
  }

  link() {
    return `${location.href.split("#")[0]}#${formatFragment(encodeURIComponent(this.heading), [this.part()])}`;
  }

  showLink() {
    this.section.querySelector("[data-role=address]").textContent = this.link();
  }

  changed() {
    return this.part() !== this.startPart;
  }

  // No numbers: "—" in the texts, the trees empty (a failed call, or a link's values before Python).
  blankOutputs() {
    for (const field of this.texts) {
      const blank = this.summaries.includes(field) ? "" : "—"; // the error (an alert) says what happened
      for (const element of this.outputsOf("field", field)) setText(element, blank);
    }
    for (const tree of this.trees) for (const element of this.outputsOf("part", tree)) element.replaceChildren();
  }

  // `paced`: a view a lab's script stepped to (Generate's), not an answer to the reader's input.
  render(reply, paced = false) {
    setText(this.section.querySelector("[data-role=copied]"), "");
    if (!reply.ok) {
      // What happened, and that nothing of the reader's was lost; the author's advice goes to the console.
      showError(this.section, reply.error, reply.traceback, reply.error.startsWith("the model"));
      // The reader is told what happened; what the lab's author should do goes to the console only.
      if (reply.advice) console.warn(`kvpage lab ${this.section.dataset.lab}: ${reply.advice}`);
      this.blankOutputs();
    } else {
      try {
        for (const tree of this.trees) {
          for (const element of this.outputsOf("part", tree)) renderTree(element, reply.result.parts[tree]);
        }
      } catch (error) {
        return this.render({ ok: false, error: "the model's drawing could not be shown", advice: error.message }, paced);
      }
      this.drawTexts(reply.result);
    }
    this.markInvalid(reply.ok);
    for (const hook of this.updated) hook(reply.ok);
    if (reply.ok) this.announce();
    this.showLink();
    this.drawn(!paced && this.settled());
    return reply.ok;
  }

  // A text box the model refused for its length (the error line, which describes it, says so) is
  // aria-invalid until an answer takes it; the limit is the schema's, counted as the model counts.
  markInvalid(ok) {
    for (const control of this.schema.controls) {
      if (control.kind !== "text") continue;
      for (const element of this.controlsOf(control)) {
        element.setAttribute("aria-invalid", String(!ok && textLength(element.value) > control.limit));
      }
    }
  }

  // No call out, none waiting, no input still debounced: what the lab shows is what its controls ask for.
  settled() {
    return this.out === null && this.queue.length === 0 && this.pending === null;
  }

  // Every text of the view but the summary (announce), each rewritten only if it changed.
  drawTexts(result) {
    showError(this.section, "");
    this.view = result;
    this.state = result.state;
    for (const field of this.texts) {
      if (this.summaries.includes(field)) continue;
      for (const element of this.outputsOf("field", field)) setText(element, result.text[field]);
    }
  }

  // The lab's summary (its outputs of kind "summary", each a polite, atomic live region: the one
  // thing a screen reader is told of an answer) from the last view, once that view is the answer the
  // reader waits for: nothing more on the way (no call out or waiting, no typing still debounced)
  // and the lab's own script not stepping a run (its region aria-busy, decode's Generate). So typing
  // announces the settled answer only and a run its end, never each step; unchanged, it is not
  // rewritten, so not said again.
  announce() {
    if (this.view === null || !this.settled() || this.section.getAttribute("aria-busy") === "true") return;
    for (const field of this.summaries) {
      for (const element of this.outputsOf("field", field)) setText(element, this.view.text[field]);
    }
  }

  // What the build showed, back on the page: controls, state and outputs.
  putBack() {
    this.state = this.started.state;
    this.view = null;
    this.linkWaiting = null;
    this.setValues(this.started.controls);
    for (const [element, nodes] of this.outputs) element.replaceChildren(...nodes.map((node) => node.cloneNode(true)));
    this.showLink();
  }

  send() {
    if (this.out !== null) return;
    if (this.queue.length === 0) {
      for (const resolve of this.idlers.splice(0)) resolve();
      return;
    }
    const call = this.queue.shift();
    this.out = call.action;
    const given = this.values();
    const carried = "state" in call ? call.state : this.state;
    const args = carried === undefined ? given : { ...given, state: carried };
    const slow = setTimeout(() => sayIn(this.section, STILL_WORKING), SLOW_MS);
    const done = () => {
      clearTimeout(slow);
      sayIn(this.section, LIVE);
      this.out = null;
    };
    this.pool.call(JSON.stringify({ lab: this.name, action: call.action, args })).then(
      (text) => {
        done();
        this.answered(call, text);
        this.send();
      },
      (error) => {
        done();
        const message = error.timedOut ? timeoutMessage(this.seconds) : `the lab could not reach Python: ${error.message}`;
        this.render({ ok: false, error: message }, call.paced);
        this.send();
      },
    );
  }

  answered(call, text) {
    let reply;
    try {
      reply = JSON.parse(text);
    } catch (error) {
      reply = { ok: false, error: `the lab could not read Python's answer: ${error.message}` };
    }
    const update = this.schema.update;
    if (call.link && !reply.ok) {
      // The link's state does not fit its values (decode's steps past its tokens): the controls' view, and why.
      const given = Object.entries(call.state).map(([field, value]) => `${field}=${value}`).join(", ");
      showNote(this.section, linkNote([...call.problems, `${given} (${reply.error})`]));
      this.request(update);
    } else if (!(call.action === update && this.queue.some((waiting) => waiting.action === update))) {
      // Not stale: a stale update is one the reader changed a control after, and the next update waits.
      this.render(reply, call.paced);
    }
  }

  // `paced`: asked for by the lab's script (lab.run: Generate's steps), not by the reader's input.
  request(action, paced = false) {
    // One waiting update stands for any number of them: it reads the controls when it goes.
    if (action === this.schema.update && this.queue.at(-1)?.action === action) return;
    this.queue.push({ action, paced });
    this.send();
  }

  // The view of the controls with `linked` state: the resume action's when a link gave state, else an update's.
  resume(linked, problems) {
    if (Object.keys(linked).length === 0) return this.request(this.schema.update);
    const state = { ...this.linkedOf(this.state), ...linked };
    this.queue.push({ action: this.schema.resume ?? this.schema.update, state, link: true, problems });
    this.send();
  }

  // A link's values for this lab ({controls, state, problems}, stage "links"); `others` are the
  // link's problems the page gives this lab to tell (labs it does not have).
  follow(read, others = []) {
    const problems = [...read.problems, ...others];
    showNote(this.section, linkNote(problems));
    if (Object.keys(read.controls).length === 0 && Object.keys(read.state).length === 0) return false;
    this.setValues(read.controls);
    if (this.isLive) {
      for (const hook of this.before) hook(); // a running Generate stops first (before Python, nothing runs)
      this.resume(read.state, problems);
    } else {
      this.linkWaiting = { state: { ...this.linkedOf(this.started.state), ...read.state }, problems };
      this.blankOutputs();
      showNote(this.section, [LINKED, linkNote(problems)].filter(Boolean).join(" "));
    }
    this.showLink();
    return true;
  }

  // "Copy link": the link goes into the field (shown, and selected, so it can be copied by hand
  // where the page may not write the clipboard, such as from a file), then to the clipboard.
  async copyLink() {
    const field = /** @type {HTMLInputElement} */ (this.section.querySelector("[data-role=link]"));
    const status = this.section.querySelector("[data-role=copied]");
    field.value = this.link();
    field.parentElement.hidden = false;
    field.focus();
    field.select();
    setText(status, "");
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = COPIED;
    } catch {
      status.textContent = copiedByCommand(field) ? COPIED : COPY_BY_HAND;
    }
  }

  // The handle a lab's own script gets.
  handle() {
    return {
      state: () => this.state,
      view: () => this.view,
      run: (action) => this.request(action, true),
      busy: () => this.out !== null || this.queue.length > 0,
      onUpdate: (hook) => this.updated.push(hook),
      beforeAction: (hook) => this.before.push(hook),
      onLive: (hook) => (this.isLive ? hook() : this.liveHooks.push(hook)),
      debounce: (ms) => {
        this.wait = ms;
      },
      // The lab as plain JSON (its controls and its linked state), and back: what a link carries.
      saved: () => ({ controls: this.values(), state: this.linkWaiting?.state ?? this.linkedOf(this.state) }),
      restore: (saved) => {
        this.setValues(saved.controls ?? {});
        this.resume(saved.state ?? {}, []);
      },
      link: () => this.link(),
      announce: () => this.announce(),
    };
  }

  // An input: the update's view of the controls; for a control the schema's keeps_state names (decode's
  // mode), the resume action's, with the lab's linked state as the last view left it (its step).
  onInput(element, control) {
    for (const hook of this.before) hook();
    this.showValue(element);
    clearTimeout(this.pending);
    this.pending = null;
    if ((this.schema.keeps_state ?? []).includes(control.name)) return this.request(this.schema.resume);
    if (this.wait === 0) return this.request(this.schema.update);
    this.pending = setTimeout(() => {
      this.pending = null;
      this.request(this.schema.update);
    }, this.wait);
  }

  wire() {
    for (const control of this.schema.controls) {
      for (const element of this.controlsOf(control)) element.addEventListener("input", () => this.onInput(element, control));
    }
    for (const button of this.schema.buttons) {
      if (!button.calls) continue; // the lab's own script handles it
      this.section.querySelector(`[data-action="${button.name}"]`).addEventListener("click", (event) => {
        // A button the lab's script marked aria-disabled (decode's Forward on a finished run) keeps
        // the focus, and so its clicks: they do nothing.
        if (/** @type {HTMLElement} */ (event.currentTarget).getAttribute("aria-disabled") === "true") return;
        for (const hook of this.before) hook();
        this.request(button.calls);
      });
    }
    this.section.querySelector("[data-role=copy]").addEventListener("click", () => this.copyLink());
    this.showLink();
    labHandles.set(this.section, this.lab);
    try {
      this.script.start?.(this.section, this.lab);
    } catch (error) {
      showError(this.section, `this lab's script failed: ${error.message}`, error.stack);
    }
    return this;
  }

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
      this.resume(linked, problems);
    }
  }

  failed(error) {
    const linked = this.linkWaiting !== null;
    if (linked) {
      showNote(this.section, linkNote(this.linkWaiting.problems));
      this.putBack();
    }
    const numbers = linked
      ? "this link's values need Python, so the lab shows the numbers computed when this page was built"
      : "the numbers shown were computed when this page was built";
    sayIn(this.section, `The labs could not start (${error.message}); ${numbers}.`);
  }

  // What a reader's Run computes for this lab (stage "reader"): the view at the values and state it
  // has now (its resume action with the state a link would carry, as decode's run at step 7 stays
  // at step 7; else its update), and the outputs that view must have. A Generate running stops first.
  /** @returns {import("./protocol.js").ReaderLab} */
  reading() {
    for (const hook of this.before) hook();
    const resume = this.schema.resume;
    const state = resume ? this.linkedOf(this.state) : this.state;
    const args = state === undefined ? this.values() : { ...this.values(), state };
    const action = resume || this.schema.update;
    return { request: JSON.stringify({ lab: this.name, action, args }), texts: this.texts, parts: this.trees };
  }

  // Resolves once the lab has no call out and none waiting (a reader's Run goes after them, so no
  // answer of the model before it is drawn over the Run's).
  idle() {
    if (this.out === null && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  // The view a reader's Run computed for this lab (the reply's text), drawn like any other.
  shown(text) {
    this.render(JSON.parse(text));
  }

  // A new model is in (serve): the lab computed again at the values and state it has now.
  refresh() {
    if (this.isLive) this.request(this.schema.update);
  }
}

/** @returns {PerformanceNavigationTiming | undefined} how the page was opened */
const navigation = () => /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"))[0];

// The copy command's fallback where the clipboard API is refused: whether it copied `field`'s selection.
function copiedByCommand(field) {
  try {
    field.select();
    return document.execCommand("copy");
  } catch {
    return false;
  }
}

// The page's URL kept to `address()` (what it should be now, as the labs are): the returned
// drawn(settled) is called after a lab draws a view; settled, the URL is written at once, else
// within WRITE_MS. Writes go at most WRITES_AT_ONCE at once and then one every WRITE_EVERY_MS
// (a token bucket); one that must wait, or that the browser refused, goes later.
function urlWriter(address) {
  let writing = null; // the timer of the next write
  let allowed = WRITES_AT_ONCE; // writes the page may make now, as of `filled`
  let filled = performance.now();
  // How long until a write may go (0: now).
  function waitToWrite() {
    const now = performance.now();
    allowed = Math.min(WRITES_AT_ONCE, allowed + (now - filled) / WRITE_EVERY_MS);
    filled = now;
    return allowed >= 1 ? 0 : (1 - allowed) * WRITE_EVERY_MS;
  }
  function write() {
    clearTimeout(writing);
    writing = null;
    const url = address();
    if (url === location.href) return;
    const wait = waitToWrite();
    if (wait > 0) {
      writing = setTimeout(write, wait);
      return;
    }
    try {
      history.replaceState(history.state, "", url);
      allowed -= 1;
    } catch {
      // A browser may refuse (too many calls: Safari's limit; an opaque page): the labs work on, and
      // the URL is tried again, so the last state is not lost.
      writing = setTimeout(write, REFUSED_MS);
    }
  }
  return (settled = false) => {
    if (settled) write();
    else writing ??= setTimeout(write, WRITE_MS);
  };
}

// Every lab of the page (its schema is in the config), wired to the `pool` of Python workers, and
// the link it was opened with (and every fragment the reader follows later) applied to them.
export function wireLabs(config, pool) {
  const sections = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("section.lab[data-lab]"))].filter((section) => config.labs[section.dataset.lab]);
  const keys = linkKeys(sections.map((section) => ({ name: section.dataset.lab, heading: section.getAttribute("aria-labelledby") ?? "" })));
  const isId = (text) => text !== "" && document.getElementById(text) !== null;
  // The URL's fragment: its heading as it was, and every lab that differs from how the page started.
  const address = () => {
    const heading = parseFragment(location.hash, isId).heading;
    const fragment = formatFragment(heading, wired.filter((lab) => lab.changed()).map((lab) => lab.part()));
    return `${location.href.split("#")[0]}${fragment ? `#${fragment}` : ""}`;
  };
  const drawn = urlWriter(address);
  const wired = sections.map((section, index) =>
    new WiredLab(section, config.labs[section.dataset.lab], pool, config.call_timeout, keys[index], drawn).wire(),
  );

  // `opened`: the page was just loaded with this fragment; a reload or Back keeps where the reader was.
  function follow(hash, opened = false) {
    const parsed = parseFragment(hash, isId);
    if (parsed.anchor || (parsed.labs.length === 0 && parsed.heading === "")) return drawn();
    const others = unknownLabs(parsed, keys);
    const seen = new Set();
    const given = new Map();
    for (const segment of parsed.labs) {
      if (seen.has(segment.key) && keys.includes(segment.key)) others.push(`${quoted(segment.key)} (named twice; the first is kept)`);
      else if (keys.includes(segment.key)) given.set(segment.key, segment.fields);
      seen.add(segment.key);
    }
    let first = null;
    wired.forEach((lab, index) => {
      const fields = given.get(lab.key);
      const extra = index === 0 ? others : [];
      if (fields === undefined) {
        if (extra.length > 0) showNote(lab.section, linkNote(extra));
      } else if (lab.follow(readLab(lab.schema, fields), extra)) {
        first ??= lab.section;
      }
    });
    const target = (parsed.heading && document.getElementById(decodeId(parsed.heading))) || first;
    const returning = opened && ["reload", "back_forward"].includes(navigation()?.type);
    if (!returning) target?.scrollIntoView();
    drawn();
  }
  follow(location.hash, true);
  // The fragment the reader followed, from the event: the page may have rewritten its URL since
  // (write, a timer, can run between the navigation and this event), and would follow itself.
  addEventListener("hashchange", (event) => follow(new URL(event.newURL).hash));
  return wired;
}

// register(name, module): a lab's own script; lab(section): a wired lab's handle (its saved() state
// and restore(), for instance, which a link to the lab could carry).
globalThis.kvpageLabs = { register: (name, module) => labModules.set(name, module), lab: (section) => labHandles.get(section) };
