// Runs the page's stage "links" (site_template/static/kvpage/links.js, an ES module) under Node, unchanged:
//   node links_stage.mjs < CALL.json
// CALL is [function, [arguments…], ids, defines]: the function's JSON result goes to stdout. `ids`
// are the element ids the page has, for parseFragment's isId; `defines` are the constants the page
// script is bundled with (sitegen/site/page_script.py's contract(), e.g. KVPAGE_TEXT_LENGTH).
import { readFileSync } from "node:fs";

const [name, args, ids, defines] = JSON.parse(readFileSync(0, "utf8"));
// The build's defines (contract()), as the globals contract.js reads, before the stage is imported.
for (const [key, value] of Object.entries({ KVPAGE_WORKER_SCRIPT: '""', ...defines })) {
  globalThis[key] = JSON.parse(value);
}
const stage = await import("../../site_template/static/kvpage/links.js");
const given = name === "parseFragment" ? [args[0], (text) => ids.includes(text)] : args;
process.stdout.write(JSON.stringify(stage[name](...given)));
