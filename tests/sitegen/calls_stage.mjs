// Runs the page's stage "calls" (site_template/static/kvpage/calls.js, an ES module) under Node, unchanged:
//   node calls_stage.mjs < PLAY.json
// PLAY is {schema, seconds, defines, steps}: a CallQueue of `schema` on a pool this script holds, and
// each step played in turn, the microtasks run after each: ["values", {controls}], ["state", state],
// ["request", action, paced?], ["input", control], ["resume", linked, problems], ["answer", n, text]
// (the n-th call sent answers), ["fail", n, timedOut, message], ["idle"] (a mark once idle() resolves).
// What the queue did goes to stdout, in order: {sent: request}, {draw: reply, paced}, {note}, {idle}.
import { readFileSync } from "node:fs";

const { schema, seconds, defines, steps } = JSON.parse(readFileSync(0, "utf8"));
for (const [key, value] of Object.entries({ KVPAGE_WORKER_SCRIPT: '""', ...defines })) {
  globalThis[key] = JSON.parse(value);
}
const { CallQueue } = await import("../../site_template/static/kvpage/calls.js");

const log = [];
const calls = []; // {resolve, reject} of each call sent, in order
let controls = {};
let state;
const pool = (request) => {
  log.push({ sent: JSON.parse(request) });
  return new Promise((resolve, reject) => calls.push({ resolve, reject }));
};
const queue = new CallQueue(schema, pool, seconds, {
  values: () => ({ ...controls }),
  state: () => state,
  draw: (reply, paced) => log.push({ draw: reply, paced }),
  note: (text) => log.push({ note: text }),
  waiting: () => undefined,
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
for (const [op, ...args] of steps) {
  if (op === "values") controls = args[0];
  else if (op === "state") state = args[0];
  else if (op === "request") queue.request(args[0], args[1] ?? false);
  else if (op === "input") queue.input(args[0]);
  else if (op === "resume") queue.resume(args[0], state, args[1]);
  else if (op === "answer") calls[args[0]].resolve(args[1]);
  else if (op === "fail") calls[args[0]].reject(Object.assign(new Error(args[2]), { timedOut: args[1] }));
  else if (op === "idle") queue.idle().then(() => log.push({ idle: true }));
  else throw new Error(`no step ${op}`);
  await settle();
}
process.stdout.write(JSON.stringify(log));
process.exit(0); // a debounce timer left running does not hold the answer
