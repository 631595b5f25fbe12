// What the build defines for the page's modules (sitegen/site/page_script.py, esbuild's define; read
// only by contract.js), and the text modules it imports (esbuild's text loader).

declare const KVPAGE_TREE: {
  svg: string[];
  html: string[];
  void: string[];
  forbidden: string[];
  attribute: string;
};
declare const KVPAGE_TEXT_KINDS: string[];
declare const KVPAGE_CONFIG_ID: string;
declare const KVPAGE_TEXT_LENGTH: "code points";
declare const KVPAGE_WORKER_SCRIPT: string;
declare const KVPAGE_READER_ID: string;

declare module "*.py" {
  const text: string;
  export default text;
}

// Uint8Array.fromBase64 (ES2026), where the browser has it: the page falls back to atob.
interface Uint8ArrayConstructor {
  fromBase64?(text: string): Uint8Array;
}

// The search box's script (static/search.js, a classic script beside the bundle, type-checked with
// it): MiniSearch's loader, which the index's own script brings in (sitegen/search/index.py).
declare const MiniSearch: { loadJS(index: unknown, options: unknown): any };
