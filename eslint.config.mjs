// make check: ESLint over the JavaScript of the build and the page (sitegen/, site_template/, and
// bench's stock loader, which is bundled in place of the page's). Every name is declared, imported
// or the platform's (no-undef); no name is declared again inside its own scope (no-shadow); and no
// function is over 60 lines (max-lines-per-function, which skips an IIFE: a classic script's own
// scope), as no Python function is (tests/test_function_length.py). One that must be longer says
// why: // eslint-disable-next-line max-lines-per-function -- why.
import js from "@eslint/js";
import globals from "globals";

// What it checks is named where it runs (the Makefile's check: sitegen site_template bench/stock_spawn.js).
export default [
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-undef": "error",
      "no-shadow": ["error", { hoist: "all" }],
      "max-lines-per-function": ["error", { max: 60 }],
    },
  },
  {
    // The page's ES modules (bundled by sitegen/site/page_script.py) and Python's worker, in a browser.
    files: ["site_template/static/kvpage/*.js", "bench/stock_spawn.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, ...globals.worker } },
  },
  {
    // What the build defines for contract.js (sitegen/site/page_script.py; their types: globals.d.ts).
    files: ["site_template/static/kvpage/contract.js"],
    languageOptions: {
      globals: {
        KVPAGE_TREE: "readonly",
        KVPAGE_TEXT_KINDS: "readonly",
        KVPAGE_CONFIG_ID: "readonly",
        KVPAGE_TEXT_LENGTH: "readonly",
        KVPAGE_WORKER_SCRIPT: "readonly",
        KVPAGE_READER_ID: "readonly",
      },
    },
  },
  {
    // The page's other scripts, classic: search, the labs' own, serve's live reload, the search terms.
    files: ["site_template/static/*.js", "site_template/static/labs/*.js", "sitegen/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    // Search's index script (search/index.js) defines MiniSearch before search.js runs a query.
    files: ["site_template/static/search.js"],
    languageOptions: { globals: { MiniSearch: "readonly" } },
  },
  {
    // The build's Node scripts.
    files: ["sitegen/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
