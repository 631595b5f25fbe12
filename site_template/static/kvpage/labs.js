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
// Each lab's state is also a part of the page's URL fragment (stage "links" has its format): a
// link opened shows its values in the controls at once, and their view once Python is live (the
// schema's resume action builds it from the controls and the linked state); until then the
// readouts show "—", not the build's numbers for other values, and if Python cannot start the lab
// goes back to what the build showed, and says so. As the reader explores, the fragment follows
// (history.replaceState, a few times a second at most: no history entry per step), naming each
// lab that differs from how the page started. A field of a link that does not fit is left out,
// with a quiet note in the lab; "Copy link" copies one lab's link, or selects it for the reader.
//
// A lab that needs more (a timer, keys) registers a small script of its own by its name:
//   kvpageLabs.register(NAME, { start(section, lab) })
// `start` runs once, before Python is live, with the handle `lab` below.

const LIVE = "Live: these numbers are computed by kvpage's Python model, running in your browser.";
const STILL_WORKING = "Python is still working on this…";
const SLOW_MS = 1000; // after this long without an answer, the lab says it is still waiting
const WRITE_MS = 200; // the URL follows the labs at most this often (browsers refuse a flood of replaceState)
const LINKED = "Python has not started yet: the controls show this link's values, and their numbers appear once it runs.";
const COPIED = "Link copied.";
const COPY_BY_HAND = "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.";
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

function showNote(section, text) {
  const note = section.querySelector("[data-role=note]");
  note.textContent = text;
  note.hidden = !text;
}

function timeoutMessage(seconds) {
  return `The model took longer than ${seconds} s and was stopped; the lab was reset.`;
}

// One lab: `pool.call(request)` answers the JSON text kvpage.bridge.handle takes with the text it
// returns, or fails with {timedOut: true} (stage "python"). `key` names it in a link, and `drawn()`
// is called after each view it draws.
function wireLab(section, schema, pool, seconds, key, drawn) {
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
  const queue = []; // {action, state?}: calls waiting for the one out to come back
  let linkWaiting = null; // {state, problems}: a link's linked state and notes, opened before Python was live
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
  const linkedOf = (given) =>
    Object.fromEntries((schema.linked_state ?? []).filter((linked) => given?.[linked.name] !== undefined).map((linked) => [linked.name, given[linked.name]]));
  const part = () => formatLab(key, schema, values(), linkWaiting?.state ?? linkedOf(state));
  const startPart = part();
  const heading = section.getAttribute("aria-labelledby") ?? "";
  const link = () => `${location.href.split("#")[0]}#${formatFragment(encodeURIComponent(heading), [part()])}`;
  const showLink = () => {
    section.querySelector("[data-role=address]").textContent = link();
  };
  // What the build showed, to put back when the lab is reset.
  const outputs = [...section.querySelectorAll("[data-field], [data-part]")].map((element) => [
    element,
    [...element.childNodes].map((node) => node.cloneNode(true)),
  ]);

  function render(reply) {
    section.querySelector("[data-role=copied]").textContent = "";
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
    showLink();
    drawn();
    return reply.ok;
  }

  // What the build showed, back on the page: controls, state and outputs.
  function putBack() {
    state = started.state;
    view = null;
    linkWaiting = null;
    setValues(started.controls);
    for (const [element, nodes] of outputs) element.replaceChildren(...nodes.map((node) => node.cloneNode(true)));
    showLink();
  }

  function reset(message) {
    queue.length = 0;
    clearTimeout(pending);
    putBack();
    showError(section, message);
    for (const hook of updated) hook(false);
    drawn();
  }

  function send() {
    if (out !== null || queue.length === 0) return;
    const call = queue.shift();
    const action = call.action;
    out = action;
    const given = values();
    const carried = "state" in call ? call.state : state;
    const message = JSON.stringify({ lab: name, action, args: carried === undefined ? given : { ...given, state: carried } });
    const slow = setTimeout(() => sayIn(section, STILL_WORKING), SLOW_MS);
    const done = () => {
      clearTimeout(slow);
      sayIn(section, LIVE);
      out = null;
    };
    pool.call(message).then(
      (text) => {
        done();
        let reply;
        try {
          reply = JSON.parse(text);
        } catch (error) {
          reply = { ok: false, error: `the lab could not read Python's answer: ${error.message}` };
        }
        if (call.link && !reply.ok) {
          // The link's state does not fit its values (decode's steps past its tokens): the controls' view, and why.
          const given = Object.entries(call.state).map(([field, value]) => `${field}=${value}`).join(", ");
          showNote(section, linkNote([...call.problems, `${given} (${reply.error})`]));
          request(schema.update);
        } else if (!(action === schema.update && queue.some((waiting) => waiting.action === schema.update))) {
          // Not stale: a stale update is one the reader changed a control after, and the next update waits.
          render(reply);
        }
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
    if (action === schema.update && queue.at(-1)?.action === action) return;
    queue.push({ action });
    send();
  }

  // The view of `controls` with `linked` state: the resume action's when a link gave state, else an update's.
  function resume(linked, problems) {
    if (Object.keys(linked).length === 0) return request(schema.update);
    queue.push({ action: schema.resume ?? schema.update, state: { ...linkedOf(state), ...linked }, link: true, problems });
    send();
  }

  // A link's values for this lab ({controls, state, problems}, stage "links"); `others` are the
  // link's problems the page gives this lab to tell (labs it does not have).
  function follow(read, others = []) {
    const problems = [...read.problems, ...others];
    showNote(section, linkNote(problems));
    if (Object.keys(read.controls).length === 0 && Object.keys(read.state).length === 0) return false;
    setValues(read.controls);
    if (live) {
      for (const hook of before) hook(); // a running Generate stops first (before Python, nothing runs)
      resume(read.state, problems);
    } else {
      linkWaiting = { state: { ...linkedOf(started.state), ...read.state }, problems };
      for (const field of texts) for (const element of section.querySelectorAll(`[data-field="${field}"]`)) element.textContent = "—";
      for (const tree of trees) for (const element of section.querySelectorAll(`[data-part="${tree}"]`)) element.replaceChildren();
      showNote(section, [LINKED, linkNote(problems)].filter(Boolean).join(" "));
    }
    showLink();
    return true;
  }

  // "Copy link": the link goes into the field (shown, and selected, so it can be copied by hand
  // where the page may not write the clipboard, such as from a file), then to the clipboard.
  async function copyLink() {
    const field = section.querySelector("[data-role=link]");
    const status = section.querySelector("[data-role=copied]");
    field.value = link();
    field.parentElement.hidden = false;
    field.focus();
    field.select();
    status.textContent = "";
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = COPIED;
    } catch {
      let copied = false;
      try {
        field.select();
        copied = document.execCommand("copy");
      } catch {
        copied = false;
      }
      status.textContent = copied ? COPIED : COPY_BY_HAND;
    }
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
    // The lab as plain JSON (its controls and its linked state), and back: what a link carries.
    saved: () => ({ controls: values(), state: linkWaiting?.state ?? linkedOf(state) }),
    restore: (saved) => {
      setValues(saved.controls ?? {});
      resume(saved.state ?? {}, []);
    },
    link,
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
  section.querySelector("[data-role=copy]").addEventListener("click", copyLink);
  showLink();
  labHandles.set(section, lab);
  try {
    module.start?.(section, lab);
  } catch (error) {
    showError(section, `this lab's script failed: ${error.message}`, error.stack);
  }
  return {
    section,
    lab,
    key,
    schema,
    follow,
    part,
    changed: () => part() !== startPart,
    live() {
      live = true;
      for (const element of section.querySelectorAll("[data-control], [data-action]")) element.disabled = false;
      sayIn(section, LIVE);
      for (const hook of onLive.splice(0)) hook();
      if (linkWaiting !== null) {
        const { state: linked, problems } = linkWaiting;
        linkWaiting = null;
        showNote(section, linkNote(problems));
        resume(linked, problems);
      }
    },
    failed(error) {
      const given = linkWaiting !== null;
      if (given) {
        showNote(section, linkNote(linkWaiting.problems));
        putBack();
      }
      const shown = given
        ? "this link's values need Python, so the lab shows the numbers computed when this page was built"
        : "the numbers shown were computed when this page was built";
      sayIn(section, `The labs could not start (${error.message}); ${shown}.`);
    },
    // A new model is in (serve): the lab computed again at the values and state it has now.
    refresh() {
      if (live) request(schema.update);
    },
  };
}

// Every lab of the page (its schema is in the config), wired to the `pool` of Python workers, and
// the link it was opened with (and every fragment the reader follows later) applied to them.
function wireLabs(config, pool) {
  const sections = [...document.querySelectorAll("section.lab[data-lab]")].filter((section) => config.labs[section.dataset.lab]);
  const keys = linkKeys(sections.map((section) => ({ name: section.dataset.lab, heading: section.getAttribute("aria-labelledby") ?? "" })));
  let writing = null;
  const isId = (text) => text !== "" && document.getElementById(text) !== null;

  // The URL's fragment: its heading as it was, and every lab that differs from how the page started.
  function write() {
    writing = null;
    const heading = parseFragment(location.hash, isId).heading;
    const fragment = formatFragment(heading, wired.filter((lab) => lab.changed()).map((lab) => lab.part()));
    const url = `${location.href.split("#")[0]}${fragment ? `#${fragment}` : ""}`;
    if (url === location.href) return;
    try {
      history.replaceState(history.state, "", url);
    } catch {
      // A browser may refuse (too many calls, an opaque page): the labs work on, the URL stays.
    }
  }
  const drawn = () => {
    writing ??= setTimeout(write, WRITE_MS);
  };
  const wired = sections.map((section, index) =>
    wireLab(section, config.labs[section.dataset.lab], pool, config.call_timeout, keys[index], drawn),
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
    const returning = opened && ["reload", "back_forward"].includes(performance.getEntriesByType("navigation")[0]?.type);
    if (!returning) target?.scrollIntoView();
    drawn();
  }
  follow(location.hash, true);
  addEventListener("hashchange", () => follow(location.hash));
  return wired;
}

// register(name, module): a lab's own script; lab(section): a wired lab's handle (its saved() state
// and restore(), for instance, which a link to the lab could carry).
globalThis.kvpageLabs = { register: (name, module) => labModules.set(name, module), lab: (section) => labHandles.get(section) };
