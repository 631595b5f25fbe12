// Runs the page's stage "links" (site_template/static/kvpage/links.js, an ES module) under Node, unchanged:
//   node links_stage.mjs < CALL.json
// CALL is [function, [arguments…], ids]: the function's JSON result goes to stdout. `ids` are the
// element ids the page has, for parseFragment's isId.
import { readFileSync } from "node:fs";
import * as stage from "../../site_template/static/kvpage/links.js";

const [name, args, ids] = JSON.parse(readFileSync(0, "utf8"));
const given = name === "parseFragment" ? [args[0], (text) => ids.includes(text)] : args;
process.stdout.write(JSON.stringify(stage[name](...given)));
