// Runs the page's stage "links" (site_template/static/kvpage/links.js) under Node, unchanged:
//   node links_stage.mjs < CALL.json
// CALL is [function, [arguments…], ids, contract]: the function's JSON result goes to stdout. `ids`
// are the element ids the page has, for parseFragment's isId; `contract` is the constants the page
// script is built with (sitegen/page_script.py's contract(), e.g. textLength), run before the stage.
import { readFileSync } from "node:fs";

const source = readFileSync(new URL("../../site_template/static/kvpage/links.js", import.meta.url), "utf8");
const [name, args, ids, contract] = JSON.parse(readFileSync(0, "utf8"));
const stage = new Function(
  `"use strict";\n${contract}\n${source}\nreturn { formatLab, formatFragment, parseFragment, readLab, linkKeys, linkNote, unknownLabs };`,
)();
const given = name === "parseFragment" ? [args[0], (text) => ids.includes(text)] : args;
process.stdout.write(JSON.stringify(stage[name](...given)));
