// How text becomes search terms, and the index's shape: MiniSearch's options for the book's index.
// The same code runs twice: at build time, where sitegen/search/search_index.mjs indexes the book's
// sections with it, and in the page, where static/search.js reads the reader's query and marks the
// words a result matched. So a word is a term in the index exactly when the page finds it (decision 0046).
"use strict";

globalThis.kvpageSearchTerms = (() => {
  // A word is a run of letters, digits and combining marks; a term is a word in compatibility
  // decomposition, its marks dropped, in lower case: "Précis", "PRECIS" and "precis" are one term,
  // and so are "n²" and "n2". Every other character (spaces, punctuation, symbols) only separates.
  const WORD = /[\p{L}\p{N}\p{M}]+/gu;
  const MARKS = /\p{M}+/gu;
  const term = (word) => word.normalize("NFKD").replace(MARKS, "").toLowerCase() || null;
  return {
    /** Each word of ``text`` with where it starts, for marking the matched ones. */
    words: (text) => Array.from(text.matchAll(WORD), (match) => ({ word: match[0], at: match.index })),
    term,
    options: {
      idField: "id",
      fields: ["h", "t"], // a section's heading, its text
      storeFields: ["c", "a", "h", "t"], // and which chapter it is in, and its heading's anchor
      tokenize: (text) => text.match(WORD) || [],
      processTerm: term,
    },
  };
})();
