// Build-time Pyodide, run under Node by sitegen/runtime/snapshot.py: the page's Python made ahead (decision 0003).
// Three commands (COMMANDS: compile-stdlib, snapshot, check), each described where it is defined. Pyodide's
// snapshot API is private, so this runs only on the files sitegen/runtime/pyodide-pins.json pins; and all
// that could make two builds differ is pinned while it runs (pinNondeterminism), so the snapshot is a
// function of its inputs, byte for byte.

import crypto from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";

// The build's one date (sitegen/book/reproducible.py), in seconds, from sitegen/runtime/snapshot.py's environment.
const EPOCH_S = Number(process.env.SOURCE_DATE_EPOCH);
if (!Number.isInteger(EPOCH_S)) throw new Error("SOURCE_DATE_EPOCH is not set: run this through sitegen/runtime/snapshot.py");
// Under Node, Emscripten names the program after this script's path, and Python keeps it
// (sys.executable, sys.argv): use the name a browser gets instead.
const PROGRAM = "./this.program";

// Everything that could make two builds differ is pinned while the script runs: the clock, the monotonic
// clock, the time zone, random bytes, Math.random and Python's hash seed. So the snapshot is a function of
// its inputs, byte for byte (tests/test_reproducible.py builds twice, in different zones and with different
// seeds).
function pinNondeterminism() {
  // Python's time module records the zone it starts in (time.timezone, time.tzname).
  process.env.TZ = "UTC";
  Date.now = () => EPOCH_S * 1000;
  // Monotonic time only moves forward, by a microsecond a call, so that it stays far below any
  // page's performance.now() after the restore: Python's clocks never run backwards.
  let now = 0;
  performance.now = () => (now += 0.001);
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  crypto.randomFillSync = (view) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = next() & 0xff;
    return view;
  };
  Math.random = () => next() / 2 ** 32;
}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const options = { command };
  while (rest.length > 0) {
    const flag = rest.shift();
    if (!flag.startsWith("--") || rest.length === 0) throw new Error(`bad argument ${flag}`);
    options[flag.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = rest.shift();
  }
  return options;
}

async function pyodideModule(dir) {
  return import(join(dir, "pyodide.mjs"));
}

// Line numbers without columns, and no docstring: a code object (and those nested in it) as the page
// needs it (decision 0058). CPython's line table gives each run of bytecode its line and columns;
// the columns only place the ^^^ under a traceback's source line, and the page shows no source line
// of the standard library (it ships none). Each run becomes one "no column" entry (locations.md:
// code 13, the line as a signed delta), as python -X no_debug_ranges writes, one entry per line
// rather than per instruction. Tracebacks, inspect and warnings keep their line numbers.
const LINES_ONLY_PY = `
def _varint(value):
    out = bytearray()
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)
    return out


def _lines_only(code):
    consts = tuple(_lines_only(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    if code.co_flags & 0x4000000 and consts:  # CO_HAS_DOCSTRING: co_consts[0] is the docstring
        consts = (None, *consts[1:])
    table, previous = bytearray(), code.co_firstlineno
    for start, end, line in code.co_lines():
        units = (end - start) // 2
        while units > 0:
            length = min(units, 8)
            if line is None:
                table.append(0x80 | 15 << 3 | length - 1)
            else:
                table.append(0x80 | 13 << 3 | length - 1)
                delta = line - previous
                table += _varint(-delta << 1 | 1 if delta < 0 else delta << 1)
                previous = line
            units -= length
    return code.replace(co_linetable=bytes(table), co_consts=consts)
`;

const COMPILE_PY = `${LINES_ONLY_PY}
import importlib.util, sys, time, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

source = f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip"
with zipfile.ZipFile(source) as src, zipfile.ZipFile("/tmp/stdlib-pyc.zip", "w") as dst:
    for name in sorted(src.namelist()):
        if not name.endswith(".py"):
            continue
        data = src.read(name)
        # The file name zipimport would give the code if it compiled the .py itself. Compiled as
        # python -OO would (optimize=2: no docstrings, no asserts), which CPython supports for its
        # standard library: the docstrings of the ~140 modules the labs import were the largest
        # text in the memory the page downloads, and nothing the page runs reads them.
        # Line numbers without columns too (LINES_ONLY_PY).
        code = _lines_only(compile(data, f"{source}/{name}", "exec", dont_inherit=True, optimize=2))
        info = zipfile.ZipInfo(name + "c", date_time=time.gmtime(${EPOCH_S})[:6])
        info.external_attr = 0o644 << 16
        dst.writestr(info, _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
`;

//   node python_snapshot.mjs compile-stdlib --pyodide DIR --out ZIP
// compiles every module of Pyodide's standard library with Pyodide's own Python into unchecked
// hash-based .pyc files, as python -OO and with line numbers but no columns (decision 0058): the
// snapshot's imports then unmarshal instead of compiling, which is faster and leaves no compiler
// garbage in the memory we ship.
async function compileStdlib(options) {
  const { loadPyodide } = await pyodideModule(options.pyodide);
  const pyodide = await loadPyodide({
    indexURL: options.pyodide,
    env: env(options),
    _sysExecutable: PROGRAM,
    stdout: () => {},
  });
  pyodide.runPython(COMPILE_PY);
  writeFileSync(options.out, pyodide.FS.readFile("/tmp/stdlib-pyc.zip"));
}

const SNAPSHOT_PY = `
import gc, importlib, json, linecache, sys, types, zipimport
sys.path.append(WHEEL_PATH)
import kvpage.bridge, kvpage.catalog

# Every standard-library module the model's source imports, wherever it imports it (the build
# read them: sitegen/labs/model_imports.py), then every action of every lab (kvpage.catalog.warm_up):
# whatever they import is in the memory the page restores.
missing = []
for name in json.loads(IMPORTS):
    try:
        importlib.import_module(name)
    except Exception as error:
        missing.append({"module": name, "error": f"{type(error).__name__}: {error}"})
failures = kvpage.catalog.warm_up(json.loads(LABS))

stdlib = f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip/"
modules = sorted({
    file.removeprefix(stdlib).removesuffix("c")
    for file in (getattr(module, "__file__", None) for module in list(sys.modules.values()))
    if isinstance(file, str) and file.startswith(stdlib)
})

${LINES_ONLY_PY}

def _forget_docs_and_columns():
    # What compile-stdlib left out of the standard library's .pyc files, also out of everything
    # else that is not the model's: the frozen modules' (os, codecs, importlib._bootstrap, ...)
    # docstrings and columns, the built-in modules' and classes' docstrings (decision 0058).
    # The model keeps both: its tracebacks point at its own source, columns and all.
    def own(name):
        return isinstance(name, str) and (name == "kvpage" or name.startswith("kvpage."))

    for function in [item for item in gc.get_objects() if isinstance(item, types.FunctionType)]:
        if own(function.__module__) or "/kvpage/" in function.__code__.co_filename:
            continue
        function.__doc__ = None
        # Only the frozen modules' code: the rest is the .pyc's already, or made at run time
        # (dataclasses', namedtuples' methods).
        if function.__code__.co_filename.startswith("<frozen "):
            function.__code__ = _lines_only(function.__code__)
    for module in list(sys.modules.values()):
        if not own(getattr(module, "__name__", None)) and isinstance(getattr(module, "__doc__", None), str):
            module.__doc__ = None
    for cls in [item for item in gc.get_objects() if isinstance(item, type)]:
        if not own(cls.__module__) and isinstance(cls.__dict__.get("__doc__"), str):
            try:
                cls.__doc__ = None
            except (AttributeError, TypeError):  # a static built-in type: its docstring is in the wasm
                pass


_forget_docs_and_columns()
# The page has other files at these paths (an empty stdlib zip, the same wheel): no cached
# zip directory, file-finder listing or source line may survive from this process into the page.
# (importlib.invalidate_caches() alone is not enough: it re-reads the stdlib zip's directory.)
importlib.invalidate_caches()
zipimport._zip_directory_cache.clear()
linecache.clearcache()
result = json.dumps({"modules": modules, "stdlib": stdlib.removesuffix("/"), "missing": missing, "failures": failures})
del WHEEL_PATH, IMPORTS, LABS, missing, failures, name, _varint, _lines_only, _forget_docs_and_columns
gc.collect()
assert not zipimport._zip_directory_cache, list(zipimport._zip_directory_cache)
result
`;

// dlmalloc's (Pyodide's malloc) heap, from __heap_base to the break: chunks back to back, each a
// u32 prev_foot then a u32 head (size | PINUSE 1 | CINUSE 2), the last the top chunk, then a foot
// whose head is TOP_FOOT (no in-use bits: no chunk has those). A free chunk's bytes past its links
// (fd, bk; and child[2], parent, index in one of 256 bytes or more) are whatever was freed there.
const PINUSE = 1;
const CINUSE = 2;
const TOP_FOOT = 40;
const SMALL_LINKS = 16;
const TREE_LINKS = 32;
const MIN_LARGE = 256;

// dlmalloc's own account of its heap (mallinfo: arena, ordblks, ..., fordblks), read through the stack.
function mallinfo(Module) {
  const top = Module.stackSave();
  try {
    const at = Module.stackAlloc(40);
    Module._mallinfo(at);
    const [arena, ordblks] = new Uint32Array(Module.HEAPU8.buffer, at, 2);
    return { arena, ordblks, fordblks: new Uint32Array(Module.HEAPU8.buffer, at + 32, 1)[0] };
  } finally {
    Module.stackRestore(top);
  }
}

// Zeroes what the memory holds of things freed: the payload of every free chunk of the heap past
// its links, the top chunk past its head, and the stack below the stack pointer (no frame is live
// once runPython has returned). Only zeros compress to nothing, and Python's start-up leaves about
// a megabyte freed (decision 0057). The walk must agree with dlmalloc's own mallinfo before
// anything is written: a Pyodide whose heap is laid out otherwise fails the build here.
function zeroFreed(Module) {
  const u8 = Module.HEAPU8;
  const u32 = new Uint32Array(u8.buffer);
  const head = (chunk) => u32[(chunk + 4) >> 2];
  const base = Module.___heap_base;
  const brk = u32[Module._emscripten_get_sbrk_ptr() >> 2];
  const free = [];
  let [at, top] = [base, 0];
  while (head(at) & (PINUSE | CINUSE) && at < brk) {
    const size = head(at) & ~7;
    if (size < 16) throw new Error(`the heap's chunk at ${at} has size ${size}: has Pyodide changed?`);
    if (!(head(at + size) & PINUSE)) free.push([at, size]);
    [top, at] = [at, at + size];
  }
  const freed = free.filter(([chunk]) => chunk !== top);
  const info = mallinfo(Module);
  const freeBytes = freed.reduce((sum, [, size]) => sum + size, 0) + (at - top) + TOP_FOOT;
  const agrees = head(at) === TOP_FOOT && at + TOP_FOOT === brk && info.arena === brk - base;
  if (!agrees || info.fordblks !== freeBytes || info.ordblks !== freed.length + 1) {
    throw new Error(`the heap's walk disagrees with dlmalloc's mallinfo ${JSON.stringify(info)}: has Pyodide changed?`);
  }
  u8.fill(0, top + 8, at);
  for (const [chunk, size] of freed) u8.fill(0, chunk + (size < MIN_LARGE ? SMALL_LINKS : TREE_LINKS), chunk + size);
  u8.fill(0, Module._emscripten_stack_get_end(), Module.stackSave());
}

//   node python_snapshot.mjs snapshot --pyodide DIR --stdlib PYC_ZIP --wheel WHEEL --wheel-path PATH --imports JSON
//                                     --labs JSON --out FILE
// boots Python from that zip, imports kvpage from its wheel and every stdlib module the model's source
// imports (--imports), calls every action of every lab (so whatever they import lazily is imported
// too), drops the docstrings and columns of all but the model's code (decision 0058), forgets the
// zips' cached directories, zeroes what the memory holds of things freed (zeroFreed), and writes
// Pyodide's memory snapshot. stdout: {"modules": the stdlib files it imported, "stdlib": where Pyodide
// keeps the stdlib zip, "missing": imports that failed, "failures": lab actions that failed}; with any
// missing or failure it writes no snapshot.
async function makeSnapshot(options) {
  const { loadPyodide } = await pyodideModule(options.pyodide);
  const wheel = readFileSync(options.wheel);
  const pyodide = await loadPyodide({
    indexURL: options.pyodide,
    stdLibURL: options.stdlib,
    env: env(options),
    _sysExecutable: PROGRAM,
    stdout: () => {},
    fsInit: (FS) => writeInto(FS, options.wheelPath, wheel),
    _makeSnapshot: true,
  });
  pyodide.globals.set("WHEEL_PATH", options.wheelPath);
  pyodide.globals.set("IMPORTS", options.imports);
  pyodide.globals.set("LABS", options.labs);
  const result = pyodide.runPython(SNAPSHOT_PY);
  const { missing, failures } = JSON.parse(result);
  // A lab that fails here fails in the page: no snapshot, the build reports it (sitegen/labs/warm_up.py).
  if (missing.length === 0 && failures.length === 0) {
    zeroFreed(pyodide._module);
    writeFileSync(options.out, pyodide.makeMemorySnapshot());
  }
  process.stdout.write(`${result}\n`);
}

function writeInto(FS, path, bytes) {
  FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  FS.writeFile(path, bytes);
}

// The page restores Python with an empty stdlib zip, and never writes another: every module the
// labs use is in memory (docs/decisions/0010-no-stdlib-zip.md).
const CHECK_PY = `
import json, os, sys, traceback
import kvpage.catalog, kvpage.jsonvalue
failures = kvpage.catalog.warm_up(json.loads(LABS))
shown, stdlib_shown, missing = "", "", False
try:
    kvpage.jsonvalue.field({}, "absent", str)
except kvpage.jsonvalue.LabInputError:
    shown = traceback.format_exc()
try:
    json.loads("{")
except ValueError:
    stdlib_shown = traceback.format_exc()
try:
    import this_module_is_not_there
except ModuleNotFoundError:
    missing = True


def located(function):
    """Whether the function's code places its instructions on lines, and on columns."""
    positions = list(function.__code__.co_positions())
    return [any(line is not None for line, *_ in positions), any(column is not None for *_, column, _ in positions)]


# What decision 0058 left out of memory: the standard library's columns (json from its .pyc, posixpath
# frozen in the wasm) and docstrings, and none of the model's.
lean = {
    "json": located(json.decoder.JSONDecoder.raw_decode),
    "frozen": located(os.path.join),
    "model": located(kvpage.jsonvalue.field),
    "docstrings": [module.__name__ for module in (json, os, sys, kvpage.jsonvalue) if module.__doc__],
}
json.dumps({"failures": failures, "traceback": shown, "stdlib_traceback": stdlib_shown, "missing": missing, "lean": lean})
`;

//   node python_snapshot.mjs check --pyodide DIR --snapshot FILE --wheel WHEEL --wheel-path PATH --labs JSON
// restores the snapshot the way the page does: with the wheel and an empty stdlib zip (the page has
// none), and proves it works: every lab action answers, a module that is not in memory raises
// ModuleNotFoundError, and a traceback through the model shows its source lines (read from the wheel),
// one through the standard library its line numbers, and what the snapshot left out (decision 0058) is
// out. stdout: {"failures", "missing", "traceback", "stdlib_traceback", "lean"}.
async function check(options) {
  const { loadPyodide } = await pyodideModule(options.pyodide);
  const wheel = readFileSync(options.wheel);
  const pyodide = await loadPyodide({
    indexURL: options.pyodide,
    stdLibURL: devNull,
    env: env(options),
    _sysExecutable: PROGRAM,
    stdout: () => {},
    fsInit: (FS) => writeInto(FS, options.wheelPath, wheel),
    _loadSnapshot: readFileSync(options.snapshot),
  });
  pyodide.globals.set("LABS", options.labs);
  process.stdout.write(`${pyodide.runPython(CHECK_PY)}\n`);
}

function env(options) {
  // Python's environment, from sitegen/runtime/snapshot.py: the page restores with the same.
  return JSON.parse(options.env);
}

// Pyodide's snapshot API is private (_makeSnapshot, makeMemorySnapshot, _loadSnapshot): these run only
// on the files sitegen/runtime/pyodide-pins.json pins (sitegen/runtime/snapshot.py checks them first, and
// package.json is the one place Pyodide's version is written).
const COMMANDS = { "compile-stdlib": compileStdlib, snapshot: makeSnapshot, check };

try {
  const options = parseArgs(process.argv.slice(2));
  const command = COMMANDS[options.command];
  if (!command) throw new Error(`unknown command ${options.command}; expected one of ${Object.keys(COMMANDS)}`);
  pinNondeterminism();
  await command(options);
} catch (error) {
  // Only the message: Pyodide's errors otherwise print a megabyte of minified source.
  process.stderr.write(`python_snapshot.mjs: ${error?.stack ?? error}\n`.slice(0, 4000));
  process.exitCode = 1;
}
