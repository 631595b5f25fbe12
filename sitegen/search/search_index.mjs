// Builds the book's search index at build time, for sitegen/search/index.py (decision 0046).
// Reads one JSON object on stdin: {"library": the pinned MiniSearch's code (the very bytes the
// page loads, checked by the build), "terms": sitegen/search/search_terms.js, "documents": the sections};
// runs both as classic scripts, as the page does, indexes the sections with the terms' options and
// writes MiniSearch's serialized index (its toJSON, what MiniSearch.loadJS reads) to stdout.
import { readFileSync } from "node:fs";
import vm from "node:vm";

const input = JSON.parse(readFileSync(0, "utf8"));
vm.runInThisContext(input.library, { filename: "minisearch.js" });
vm.runInThisContext(input.terms, { filename: "search_terms.js" });
const index = new globalThis.MiniSearch(globalThis.kvpageSearchTerms.options);
index.addAll(input.documents);
process.stdout.write(JSON.stringify(index));
