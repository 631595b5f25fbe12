// Stage "worker", the entry of the one bundle every worker runs after what its Blob puts first
// (stage "spawn"): Pyodide's JavaScript makes it Python's worker, the zstd decoder's the unpacker.

import { listenAsPython } from "./python-worker.js";
import { listenAsUnpacker } from "./unpacker.js";

if (typeof globalThis.loadPyodide === "function") listenAsPython();
else listenAsUnpacker();
