// Stage "calls": one lab's calls to Python, in order, at most one out at a time, with no DOM, so that
// tests/sitegen/calls_stage.mjs runs it under Node. The arguments are read when a call goes, so a click
// is never lost; an update's answer is dropped when another update waits, so the page never shows
// numbers for inputs it no longer has; a link's state that does not fit gives way to an update.

import { linkNote } from "./links.js";

const SLOW_MS = 1000; // after this long without an answer, the lab says it is still waiting

/**
 * A call waiting or out: its action; paced, asked for by the lab's script (Generate's steps), not by
 * the reader; a link's call carries the state it resumes (state) and the link's problems.
 * @typedef {{action: string, paced: boolean, state?: Record<string, unknown>, link?: boolean, problems?: string[]}} Call
 */

/**
 * What the queue asks of its lab: the controls' values and the lab's state when a call goes, a reply
 * drawn, a note for a link, and whether Python is slow to answer (`slow`) or has answered.
 * @typedef {{values(): Record<string, ControlValue>, state(): unknown, draw(reply: LabReply, paced: boolean): void,
 *   note(text: string): void, waiting(slow: boolean): void}} Side
 */

/** @param {number} seconds */
export const timeoutMessage = (seconds) =>
  `The model took longer than ${seconds} s and was stopped; the lab keeps your values.`;

/** The calls of one lab (its `schema`) through `call` (the pool's), told to `side`. */
export class CallQueue {
  /**
   * @param {LabSchema} schema
   * @param {(request: string) => Promise<string>} call the JSON text kvpage.bridge.handle takes → the text it returns
   * @param {number} seconds the book's call_timeout, for the lab's message when a call is stopped
   * @param {Side} side
   */
  constructor(schema, call, seconds, side) {
    this.schema = schema;
    this.call = call;
    this.seconds = seconds;
    this.side = side;
    /** @type {Call[]} calls waiting for the one out to come back */
    this.queue = [];
    /** @type {string | null} the action of the call out */
    this.out = null;
    this.wait = 0; // the debounce of inputs, in ms (lab.debounce)
    /** @type {ReturnType<typeof setTimeout> | null} the debounced update's timer, until it goes */
    this.pending = null;
    /** @type {(() => void)[]} resolves of idle(): called once no call is out and none waits */
    this.idlers = [];
  }

  /** Of `given` (a state), what a link carries of it (the schema's linked_state). @param {unknown} given */
  linkedOf(given) {
    const state = /** @type {Record<string, unknown> | undefined} */ (given);
    const linked = this.schema.linked_state.filter((entry) => state?.[entry.name] !== undefined);
    return Object.fromEntries(linked.map((entry) => [entry.name, state?.[entry.name]]));
  }

  /** No call out, none waiting, no input still debounced: the lab shows what its controls ask for. */
  settled() {
    return this.out === null && this.queue.length === 0 && this.pending === null;
  }

  busy() {
    return this.out !== null || this.queue.length > 0;
  }

  /** Resolves once no call is out and none waits (a reader's Run goes after them). @returns {Promise<void>} */
  idle() {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  /** `action` called; `paced`, by the lab's script. One waiting update stands for any number of them. */
  request(action = this.schema.update, paced = false) {
    if (action === this.schema.update && this.queue.at(-1)?.action === action) return;
    this.queue.push({ action, paced });
    this.send();
  }

  /**
   * The view of the controls with a link's `linked` state: the resume action's, else an update's.
   * @param {Record<string, unknown>} linked @param {unknown} state the lab's state now @param {string[]} problems
   */
  resume(linked, state, problems) {
    if (Object.keys(linked).length === 0) return this.request();
    const carried = { ...this.linkedOf(state), ...linked };
    this.queue.push({ action: this.schema.resume, paced: false, state: carried, link: true, problems });
    this.send();
  }

  /** An input of control `name`: the resume action at once if it keeps the state, else an update, debounced. @param {string} name */
  input(name) {
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = null;
    if (this.schema.keeps_state.includes(name)) return this.request(this.schema.resume);
    if (this.wait === 0) return this.request();
    this.pending = setTimeout(() => {
      this.pending = null;
      this.request();
    }, this.wait);
  }

  send() {
    if (this.out !== null) return;
    const call = this.queue.shift();
    if (call === undefined) {
      for (const resolve of this.idlers.splice(0)) resolve();
      return;
    }
    this.out = call.action;
    const given = this.side.values();
    const carried = "state" in call ? call.state : this.side.state();
    const args = carried === undefined ? given : { ...given, state: carried };
    const slow = setTimeout(() => this.side.waiting(true), SLOW_MS);
    const done = () => {
      clearTimeout(slow);
      this.side.waiting(false);
      this.out = null;
    };
    this.call(JSON.stringify({ lab: this.schema.name, action: call.action, args })).then(
      (text) => {
        done();
        this.answered(call, text);
        this.send();
      },
      (/** @type {Error & {timedOut?: boolean}} */ error) => {
        done();
        const message = error.timedOut ? timeoutMessage(this.seconds) : `the lab could not reach Python: ${error.message}`;
        this.side.draw({ ok: false, error: message }, call.paced);
        this.send();
      },
    );
  }

  /** @param {Call} call @param {string} text */
  answered(call, text) {
    /** @type {LabReply} */
    let reply;
    try {
      reply = JSON.parse(text);
    } catch (error) {
      reply = { ok: false, error: `the lab could not read Python's answer: ${error instanceof Error ? error.message : error}` };
    }
    const update = this.schema.update;
    if (call.link && !reply.ok) {
      // The link's state does not fit its values (decode's steps past its tokens): the controls' view, and why.
      const given = Object.entries(call.state ?? {}).map(([field, value]) => `${field}=${value}`).join(", ");
      this.side.note(linkNote([...(call.problems ?? []), `${given} (${reply.error})`]));
      this.request(update);
    } else if (!(call.action === update && this.queue.some((waiting) => waiting.action === update))) {
      // Not stale: a stale update is one the reader changed a control after, and the next update waits.
      this.side.draw(reply, call.paced);
    }
  }
}
