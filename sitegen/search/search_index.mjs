// Builds the book's search index at build time, for sitegen/search/index.py (decision 0046).
// Reads lines of JSON on stdin, each {"library": the pinned MiniSearch's code (the very bytes the page
// loads), "terms": sitegen/search/search_terms.js, "documents": the sections}; runs both as classic
// scripts, as the page does, indexes the sections with the terms' options and writes MiniSearch's index
// (toJSON, what loadJS reads) as a line to stdout; serve's worker keeps the process (decision 0064).
import readline from "node:readline";
import vm from "node:vm";

let loaded = "";
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const input = JSON.parse(line);
  if (input.library + input.terms !== loaded) {
    vm.runInThisContext(input.library, { filename: "minisearch.js" });
    vm.runInThisContext(input.terms, { filename: "search_terms.js" });
    loaded = input.library + input.terms;
  }
  const index = new globalThis.MiniSearch(globalThis.kvpageSearchTerms.options);
  index.addAll(input.documents);
  process.stdout.write(`${JSON.stringify(index)}\n`);
}
