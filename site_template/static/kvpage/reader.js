// Stage "reader": each lab's "Python" disclosure made the reader's: Edit, Run (the changed files, in a
// fresh Python of their own, stage "python"), and Back to the book's model. A Run that fails changes
// nothing the labs show; the reader's model lives in this page only, never in a link (decision 0052).
// A script of its own, loaded on the first Edit (stage "disclosure").

import READER from "./reader.py";

/** @typedef {import("./lab.js").WiredLab} WiredLab @typedef {import("./python.js").PythonPool} PythonPool */
/** reader.py's answer to a Run. @typedef {{ok: true, replies: string[]} | {ok: false, error: string, frames?: string[], path?: string, line?: number, col?: number, text?: string}} RunAnswer */
/** @typedef {(pool: PythonPool, labs: WiredLab[], seconds: number) => Reader} WireReader */

const CAP = 100_000; // characters a file (reader.py refuses more too)
const STARTING = "Starting a fresh Python…"; // each Run has one of its own (stage "python")
const RUNNING = "Running your model…";

/** @param {string} text @returns {string[]} */
const linesOf = (text) => text.split("\n");

// Lines added and removed from `before` to `after` (a longest common subsequence of lines).
/** @param {string} before @param {string} after */
function changed(before, after) {
  const a = linesOf(before);
  const b = linesOf(after);
  let row = new Uint32Array(b.length + 1);
  for (const line of a) {
    const next = new Uint32Array(b.length + 1);
    for (let j = 0; j < b.length; j += 1) next[j + 1] = line === b[j] ? row[j] + 1 : Math.max(row[j + 1], next[j]);
    row = next;
  }
  const common = row[b.length];
  return { added: b.length - common, removed: a.length - common };
}

/** @param {string} tag @param {string} [className] */
function element(tag, className) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  return made;
}

// One file of a disclosure: its highlighted code, and the editor that replaces it on Edit.
class ModelFile {
  /** @param {HTMLElement} figure @param {Map<string, string>} book */
  constructor(figure, book) {
    this.figure = figure;
    this.path = figure.dataset.file ?? "";
    this.code = /** @type {HTMLElement} */ (figure.querySelector("pre.code"));
    if (!book.has(this.path)) book.set(this.path, this.code.textContent ?? "");
    this.book = book.get(this.path) ?? "";
    /** @type {HTMLElement | null} */
    this.editor = null;
    /** @type {HTMLTextAreaElement | null} the text box, once edited */
    this.text = null;
    /** @type {HTMLElement | null} */
    this.numbers = null;
    this.opensAt = Number(figure.dataset.opensAt ?? 0); // the line Edit opens on (sitegen/labs/sources.py), or 0
  }

  // The book's file is now `code`'s (serve, a model edit): shown when not edited; an editor still
  // holding the old book's text takes the new one, an edit of the reader's is kept.
  /** @param {HTMLElement} code @param {string} book */
  renew(code, book) {
    const old = this.book;
    this.book = book;
    const pre = /** @type {HTMLElement} */ (document.importNode(code, true));
    if (this.editor === null) this.code.replaceWith(pre);
    this.code = pre;
    if (this.text !== null && this.text.value === old) {
      this.text.value = book;
      this.number();
    }
  }

  /** @param {string} text */
  edit(text) {
    if (this.text === null) {
      const editor = (this.editor = element("div", "python-editor"));
      const numbers = (this.numbers = element("pre", "python-lines"));
      numbers.setAttribute("aria-hidden", "true");
      this.text = /** @type {HTMLTextAreaElement} */ (element("textarea"));
      this.text.spellcheck = false;
      this.text.wrap = "off";
      this.text.setAttribute("autocapitalize", "off");
      this.text.id = `${this.figure.closest("section")?.getAttribute("aria-labelledby") ?? "lab"}-${this.path.replace(/[^a-z0-9]+/g, "-")}`;
      const label = /** @type {HTMLLabelElement} */ (element("label", "visually-hidden"));
      label.htmlFor = this.text.id;
      label.textContent = `Edit ${this.path}`;
      this.text.addEventListener("input", () => this.number());
      editor.append(numbers, this.text);
      this.code.replaceWith(label, editor);
    }
    this.text.value = text;
    this.number();
  }

  read() {
    if (this.editor !== null) {
      this.editor.previousElementSibling?.remove(); // its label
      this.editor.replaceWith(this.code);
    }
    this.editor = this.text = this.numbers = null;
  }

  // The line numbers beside the text, the text box as tall as its lines, `bad` (a line) marked.
  number(bad = 0) {
    if (this.text === null || this.numbers === null) return;
    const count = linesOf(this.text.value).length;
    this.text.rows = count;
    this.numbers.replaceChildren(
      ...Array.from({ length: count }, (_, index) => {
        const line = element("span", index + 1 === bad ? "python-bad" : "");
        line.textContent = `${index + 1}\n`;
        return line;
      }),
    );
  }

  value() {
    return this.text === null ? null : this.text.value;
  }

  // The cursor at the start of line `line`, the text box focused, and that line in the middle of the window.
  /** @param {number} line */
  open(line) {
    if (this.text === null || this.numbers === null) return;
    const starts = linesOf(this.text.value).slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    this.text.focus({ preventScroll: true });
    this.text.setSelectionRange(starts, starts);
    this.numbers.children[line - 1]?.scrollIntoView({ block: "center" });
  }

  // Line `line` marked and selected, at column `col`, and the text box focused on it.
  /** @param {number} line @param {number} col */
  mark(line, col) {
    this.number(line);
    if (this.text === null) return;
    const starts = linesOf(this.text.value).slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    this.text.focus();
    this.text.setSelectionRange(starts + Math.max(col - 1, 0), starts + linesOf(this.text.value)[line - 1].length);
  }
}

// One disclosure, its files and buttons; `page` is what every disclosure of the page shares.
class Disclosure {
  /** @param {HTMLElement} details @param {Reader} page */
  constructor(details, page) {
    this.details = details;
    this.page = page;
    const figures = /** @type {NodeListOf<HTMLElement>} */ (details.querySelectorAll("figure[data-file]"));
    this.files = [...figures].map((figure) => new ModelFile(figure, page.book));
    const find = (/** @type {string} */ selector, within = details) => /** @type {HTMLButtonElement} */ (within.querySelector(selector));
    this.edit = find("[data-role=edit]");
    this.run = find("[data-role=run]");
    this.restore = find("[data-role=restore]");
    this.yours = find("[data-role=yours]", details.parentElement ?? details); // outside it: seen with it closed
    this.problem = find("[data-role=problem]");
    this.run.addEventListener("click", () => page.run(this));
    this.restore.addEventListener("click", () => page.run(this, {}));
  }

  // The files in editors; `opening` (the reader pressed Edit): the cursor on the rule a reader changes
  // first (the file the build marked, data-opens-at), else the first file focused.
  editing(opening = false) {
    for (const file of this.files) if (file.text === null) file.edit(this.page.sources[file.path] ?? file.book);
    this.edit.hidden = true;
    this.run.disabled = false;
    const rule = this.files.find((file) => file.opensAt > 0);
    if (opening && rule) rule.open(rule.opensAt);
    else this.files[0]?.text?.focus();
  }

  /** @param {string} problem */
  say(problem) {
    this.problem.textContent = problem;
    this.problem.hidden = !problem;
    for (const file of this.files) if (file.text !== null) file.number();
  }

  // What the page runs now, shown: the mark, the button back, and (if the reader's) the files in
  // editors; `back`: the book's model again, its files read, not edited.
  /** @param {Record<string, string>} sources */
  showModel(sources, back = false) {
    const paths = Object.keys(sources);
    const mine = this.files.some((file) => paths.includes(file.path));
    if (mine) this.editing();
    if (back) {
      for (const file of this.files) file.read();
      this.edit.hidden = false;
      this.run.disabled = true;
    }
    const counts = paths.map((path) => {
      const { added, removed } = changed(this.page.book.get(path) ?? "", sources[path]);
      return `${path} +${added} −${removed}`;
    });
    this.yours.textContent = paths.length ? `Your model: ${counts.join(", ")} lines` : "";
    const leaving = document.activeElement === this.restore;
    this.restore.hidden = paths.length === 0;
    if (leaving && this.restore.hidden) this.edit.focus(); // the button pressed is gone: focus to Edit, not <body>
  }
}

class Reader {
  /** @param {PythonPool} pool @param {WiredLab[]} labs @param {number} seconds */
  constructor(pool, labs, seconds) {
    this.pool = pool;
    this.labs = labs;
    this.seconds = seconds;
    /** @type {Map<string, string>} path -> the book's text of that file */
    this.book = new Map();
    /** @type {Record<string, string>} */
    this.sources = {}; // the reader's files the page runs (pool.reader once it has run)
    this.busy = false;
    const all = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("details[data-role=python]"));
    this.disclosures = [...all].map((details) => new Disclosure(details, this));
  }

  // The page's model with `from`'s editors in it (given: exactly `given`), run.
  /** @param {Disclosure} from @param {Record<string, string> | null} given */
  async run(from, given = null) {
    if (this.busy) return;
    const sources = given ?? { ...this.sources };
    if (given === null) {
      for (const file of from.files) {
        const text = file.value();
        if (text === null) continue;
        if (text === file.book) delete sources[file.path];
        else sources[file.path] = text;
      }
    }
    const length = (/** @type {string} */ text) => [...text].length; // code points, as Python counts them
    const big = Object.entries(sources).find(([, text]) => length(text) > CAP);
    if (big) return from.say(`${big[0]} has ${length(big[1]).toLocaleString("en")} characters; Run takes at most ${CAP.toLocaleString("en")} a file. The labs keep the last good model's numbers.`);
    this.busy = true;
    from.say("");
    from.yours.textContent = STARTING;
    try {
      for (const lab of this.labs) lab.reading(); // a running Generate stops
      await Promise.all(this.labs.map((lab) => lab.idle()));
      const labs = this.labs.map((lab) => lab.reading());
      /** @type {RunAnswer} */
      const answer = JSON.parse(await this.pool.model(READER, sources, labs, () => (from.yours.textContent = RUNNING)));
      if (answer.ok) this.ran(sources, answer.replies);
      else this.failed(from, answer);
    } catch (error) {
      const failure = /** @type {Error & {timedOut?: boolean}} */ (error);
      const why = failure.timedOut
        ? `Your model took longer than ${this.seconds} s and was stopped.`
        : `Your model could not reach Python: ${failure.message}.`;
      from.say(`${why} The labs keep the last good model's numbers.`);
    } finally {
      this.busy = false;
      from.showModel(this.sources);
    }
  }

  /** @param {Record<string, string>} sources @param {string[]} replies */
  ran(sources, replies) {
    this.sources = sources;
    this.labs.forEach((lab, index) => lab.shown(replies[index]));
    for (const disclosure of this.disclosures) {
      disclosure.say("");
      disclosure.showModel(sources, Object.keys(sources).length === 0);
    }
  }

  /** Edit pressed in `details` (stage "disclosure"). @param {HTMLElement} details */
  editing(details) {
    this.disclosures.find((disclosure) => disclosure.details === details)?.editing(true);
  }

  // serve swapped a new model in: `fresh`, path -> its highlighted code in the new build's page.
  /** @param {Map<string, HTMLElement>} fresh */
  showSources(fresh) {
    for (const [path, code] of fresh) this.book.set(path, code.textContent ?? "");
    for (const disclosure of this.disclosures) {
      for (const file of disclosure.files) {
        const code = fresh.get(file.path);
        if (code) file.renew(code, this.book.get(file.path) ?? "");
      }
      if (!this.busy) disclosure.showModel(this.sources); // its count, against the new book
    }
  }

  /** @param {Disclosure} from @param {Extract<RunAnswer, {ok: false}>} answer */
  failed(from, answer) {
    const lines = [answer.error];
    if (answer.text !== undefined) lines.push(answer.text, `${" ".repeat(Math.max((answer.col ?? 1) - 1, 0))}^`);
    for (const frame of answer.frames ?? []) lines.push(frame);
    lines.push("The labs keep the last good model's numbers.");
    from.say(lines.join("\n"));
    from.files.find((file) => file.path === answer.path && file.text !== null)?.mark(answer.line ?? 1, answer.col ?? 1);
  }
}

/** Every "Python" disclosure of the page wired to `pool` and the page's wired `labs`. @type {WireReader} */
function wireReader(pool, labs, seconds) {
  return new Reader(pool, labs, seconds);
}

globalThis.kvpageLabs.wireReader = wireReader; // what stage "disclosure" calls once this has run
