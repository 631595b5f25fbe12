// Written by sitegen/site/page_types.py from kvpage/schema.py, PageConfig and Loader: edit those.

type ControlSchema = NumberSchema | DecimalSchema | ChoiceSchema | CheckboxSchema | TextSchema;

type OutputKind = "text" | "status" | "progress" | "summary" | "picture" | "table" | "list";

/** A whole number control (a slider or a number box), or a lab's linked state. */
interface NumberSchema {
  name: string;
  kind: "slider" | "number";
  label: string;
  low: number;
  high: number;
  range: string;
  default: number;
}

/** A decimal slider: a number control with its step and the decimal places it is printed to. */
interface DecimalSchema {
  name: string;
  kind: "slider" | "number";
  label: string;
  low: number;
  high: number;
  range: string;
  default: number;
  step: number;
  places: number;
}

/** One option of a choice. */
interface ChoiceOption {
  value: string;
  label: string;
}

/** One of a few named options (radio buttons). */
interface ChoiceSchema {
  name: string;
  kind: "choice";
  label: string;
  options: ChoiceOption[];
  default: string;
}

/** On or off. */
interface CheckboxSchema {
  name: string;
  kind: "checkbox";
  label: string;
  default: boolean;
}

/** Free text of at most ``limit`` characters (code points). */
interface TextSchema {
  name: string;
  kind: "text";
  label: string;
  limit: number;
  rows: number;
  default: string | null;
}

/** Something the lab shows: a text (``view.text``) or an element tree (``view.parts``) by its kind. */
interface OutputSchema {
  name: string;
  kind: OutputKind;
  label: string | null;
}

/** A button, and the action a click calls ("" for none: the lab's own script handles it). */
interface ButtonSchema {
  name: string;
  label: string;
  calls: string;
}

/** The lab: the action every input calls, the one a link's state resumes with, and its parts. */
interface LabSchema {
  name: string;
  update: string;
  resume: string;
  controls: ControlSchema[];
  linked_state: NumberSchema[];
  keeps_state: string[];
  buttons: ButtonSchema[];
  outputs: OutputSchema[];
}

/** What the page's loader reads to start Python: the "python" object of the page's config. */
interface Loader {
  pyodide: string;
  index_url: string;
  lock: Record<string, unknown>;
  code: string;
  decoder_size: number;
  wasm: string;
  snapshot: string;
  snapshot_size: number;
  stdlib: string;
  wheel: string;
  wheel_path: string;
  env: Record<string, string>;
  packed: Record<string, string>;
  unpacked: Record<string, number>;
  encoding: Record<string, string>;
  sizes: Record<string, number>;
  sent: Record<string, number>;
  fresh_model: boolean;
}

/** What a page with labs tells its script, once, as JSON: the labs it shows and how to start their Python. */
interface PageConfig {
  labs: Record<string, LabSchema>;
  call_timeout: number;
  inline: boolean;
  python: Loader;
  reader: string;
}
