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

// Python's side, as the worker uses it (Pyodide's own API, of the pinned version): a Python object
// is a proxy, called and destroyed.
interface PyProxy {
  (...args: unknown[]): any;
  destroy(): void;
  copy(): PyProxy;
  [name: string]: any;
}
interface Pyodide {
  version: string;
  FS: { mkdirTree(path: string): void; writeFile(path: string, data: Uint8Array): void };
  runPython(code: string): any;
  pyimport(name: string): PyProxy;
  setInterruptBuffer(buffer: Uint8Array): void;
}

// A lab's own script's handle on its lab (stage "labs", lab.js handle()).
interface LabHandle {
  state(): any;
  view(): LabView | null;
  run(action: string): void;
  busy(): boolean;
  onUpdate(hook: (ok: boolean) => void): void;
  beforeAction(hook: () => void): void;
  onLive(hook: () => void): void;
  debounce(ms: number): void;
  saved(): { controls: Record<string, ControlValue>; state: Record<string, unknown> };
  restore(saved: { controls?: Record<string, ControlValue>; state?: Record<string, unknown> }): void;
  link(): string;
  announce(): void;
}
/** A lab's own script (static/labs/NAME.js), registered by the lab's name. */
interface LabModule {
  start?(section: HTMLElement, lab: LabHandle): void;
}
/** A control's value: a number, on or off, an option's value or a text. */
type ControlValue = number | boolean | string;
/** What an action answers with (kvpage.lab: a view), or why not (kvpage.bridge). */
interface LabView {
  text: Record<string, string>;
  parts: Record<string, unknown>;
  state?: any;
}
type LabReply =
  | { ok: true; result: LabView }
  | { ok: false; error: string; traceback?: string; advice?: string };

// What the page's scripts share by name on globalThis: each member typed here, once.
interface KvpageLabs {
  /** A lab's own script registers itself (labs.js). */
  register(name: string, module: LabModule): void;
  /** A wired lab's handle, by its section (labs.js). */
  lab(section: HTMLElement): LabHandle | undefined;
  /** `serve` after a model edit (boot.js; sitegen/serve/livereload.js calls it). */
  swapModel?(python: Loader, wheel: ArrayBuffer, fresh: Document): Promise<void>;
  /** The editor's script's entry (reader.js sets it; disclosure.js calls it). */
  wireReader?: import("./reader.js").WireReader;
}
declare var kvpageLabs: KvpageLabs;
declare var kvpageDraw: { renderTree(container: Element, nodes: unknown): void };
/** The runtime's asset scripts' packed bytes, by name (assets.js). */
declare var kvpageAssets: Map<string, { type: string; base64: string }> | undefined;
/** The zstd decoder's wasm, base64 (the unpacker's Blob, before its script). */
declare var kvpageZstd: string | undefined;
declare var loadPyodide: ((options: Record<string, unknown>) => Promise<Pyodide>) | undefined;
declare var _createPyodideModule: (settings: unknown) => Promise<unknown>;
declare var kvpageSearchData: any;
declare var kvpageSearchTerms: any;
