// Run the unit tests of the browser-side package (tests/kvpage) inside Pyodide under Node.
//
//   node tests/pyodide/run.mjs [--site DIR] [--wheels DIR] [--project DIR] [--record FILE] [-- PYTEST-ARGS]
//
// The numbers a reader sees come from kvpage running in Pyodide (Python 3.14, wasm32), while the
// CPython tests run it in Python 3.11; this runs the same test files in the reader's interpreter,
// against the very wheel the site ships. The exit code is pytest's, or 2 if the runner could not
// set up (wrong wheel, missing pytest wheels, ...). It never touches the network: every file it
// installs is read from disk and checked against a sha256 pin first, and `fetch` is disabled.
//
//   --site DIR     the built site (default: site/); its pyodide/pyodide-lock.json names our wheel
//   --wheels DIR   pytest and its dependencies, fetched by `make test-deps` (default: .cache/pyodide-wheels/)
//   --project DIR  where pyproject.toml and tests/kvpage are read from (default: this repository)
//   --record FILE  write a JSON record of what ran: interpreter, wheel sha256, each kvpage module's
//                  file and sha256 as Pyodide read it (tests/pyodide/test_run.py checks it)
//
// Why not pytest-pyodide: it breaks on pytest 9 and its --run-in-pyodide reports failing tests
// as passed. Why not micropip: the npm package ships no packages, and the run must be offline.

import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "..", "..");
const PYODIDE_DIR = join(REPO, "node_modules", "pyodide");
const PINS = join(REPO, "sitegen", "runtime", "pyodide-pins.json");
const REQUIREMENTS = join(HERE, "requirements.txt");
/** Where the tests live inside Pyodide's (in-memory) file system. */
const WORKDIR = "/home/pyodide/kvpage";
/** The runtime files the site ships; Node loads the same ones from the npm package. */
const RUNTIME_FILES = ["pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"];

class SetupError extends Error {}

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

function parseArgs(argv) {
  const options = { site: join(REPO, "site"), wheels: join(REPO, ".cache", "pyodide-wheels"), project: REPO };
  const rest = [...argv];
  while (rest.length > 0) {
    const flag = rest.shift();
    if (flag === "--") break;
    const key = { "--site": "site", "--wheels": "wheels", "--project": "project", "--record": "record" }[flag];
    if (key === undefined || rest.length === 0) {
      throw new SetupError(`usage: run.mjs [--site|--wheels|--project DIR] [--record FILE] [-- PYTEST-ARGS] (got ${flag})`);
    }
    options[key] = resolve(rest.shift());
  }
  options.pytestArgs = rest.length > 0 ? rest : ["tests/kvpage"];
  return options;
}

/** The npm Pyodide must be the declared one (package.json), pinned file for file, as the build checks. */
function checkPyodide() {
  const pins = JSON.parse(readFileSync(PINS, "utf8"));
  const declared = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).dependencies.pyodide;
  const installed = JSON.parse(readFileSync(join(PYODIDE_DIR, "package.json"), "utf8")).version;
  if (installed !== declared) {
    throw new SetupError(`${PYODIDE_DIR}: Pyodide ${installed} is installed but package.json declares ${declared}; run 'npm ci'`);
  }
  for (const name of RUNTIME_FILES) {
    const actual = sha256(readFileSync(join(PYODIDE_DIR, name)));
    if (actual !== pins.files[name]) {
      throw new SetupError(`${PYODIDE_DIR}/${name}: sha256 ${actual} does not match the pinned ${pins.files[name]}`);
    }
  }
  return installed;
}

/**
 * Our wheel, read from the site and checked against the sha256 of its entry in the site's lock
 * file. Pyodide checks that hash in a browser (fetch integrity) but not under Node, so we do.
 */
function siteWheel(site) {
  const lockPath = join(site, "pyodide", "pyodide-lock.json");
  let lock;
  try {
    lock = JSON.parse(readFileSync(lockPath, "utf8"));
  } catch (error) {
    throw new SetupError(`${lockPath}: cannot read the site's lock file (${error.message}); build the site first`);
  }
  const entry = lock.packages?.kvpage;
  if (!entry || typeof entry.file_name !== "string" || basename(entry.file_name) !== entry.file_name) {
    throw new SetupError(`${lockPath}: no kvpage entry with a plain file_name`);
  }
  const path = join(site, "pyodide", entry.file_name);
  const bytes = readFileSync(path);
  const actual = sha256(bytes);
  if (actual !== entry.sha256) {
    throw new SetupError(`${path}: sha256 ${actual} does not match ${entry.sha256} in ${lockPath}`);
  }
  return { lock, lockPath, path, name: entry.file_name, bytes, sha256: actual };
}

/** The hash-pinned requirements: [{name, version, hashes}] ("name==version \ --hash=sha256:..."). */
function readRequirements() {
  const text = readFileSync(REQUIREMENTS, "utf8").replace(/\\\n/g, " ");
  const requirements = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const match = /^([A-Za-z0-9_.-]+)==(\S+)/.exec(line);
    const hashes = [...line.matchAll(/--hash=sha256:([0-9a-f]{64})/g)].map((m) => m[1]);
    if (!match || hashes.length === 0) {
      throw new SetupError(`${REQUIREMENTS}: not 'name==version --hash=sha256:...': ${line}`);
    }
    requirements.push({ name: match[1], version: match[2], hashes });
  }
  return requirements;
}

const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, "_");

/** One pure-Python wheel per requirement, from `dir`, each matching one of its pinned hashes. */
function testWheels(dir) {
  let files;
  try {
    files = readdirSync(dir).filter((name) => name.endsWith("-py3-none-any.whl"));
  } catch {
    throw new SetupError(`${dir}: no pytest wheels; run 'make test-deps'`);
  }
  return readRequirements().map(({ name, version, hashes }) => {
    const found = files.filter((file) => {
      const [fileName, fileVersion] = file.split("-");
      return normalize(fileName) === normalize(name) && fileVersion === version;
    });
    if (found.length !== 1) {
      const what = `one ${name} ${version} py3-none-any wheel, found ${found.length}`;
      throw new SetupError(`${dir}: expected ${what}; run 'make test-deps'`);
    }
    const bytes = readFileSync(join(dir, found[0]));
    const actual = sha256(bytes);
    if (!hashes.includes(actual)) {
      throw new SetupError(`${join(dir, found[0])}: sha256 ${actual} is not pinned in ${REQUIREMENTS}`);
    }
    return { name: found[0], bytes };
  });
}

/** pyproject.toml (pytest's settings), tests/__init__.py and tests/kvpage/**: what runs, no more. */
function testFiles(project) {
  const files = new Map();
  const add = (path) => files.set(relative(project, path).split(sep).join("/"), readFileSync(path));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "__pycache__") walk(path);
      else if (entry.isFile() && !entry.name.endsWith(".pyc")) add(path);
    }
  };
  add(join(project, "pyproject.toml"));
  add(join(project, "tests", "__init__.py"));
  walk(join(project, "tests", "kvpage"));
  return files;
}

const RECORD_PY = `
import hashlib, importlib.metadata, json, os, sys, sysconfig
modules = {}
for name, module in sorted(sys.modules.items()):
    if name == "kvpage" or name.startswith("kvpage."):
        with open(module.__file__, "rb") as handle:
            modules[name] = {"file": module.__file__, "sha256": hashlib.sha256(handle.read()).hexdigest()}
json.dumps({
    "python": sys.version,
    "platform": sys.platform,
    "purelib": os.path.realpath(sysconfig.get_path("purelib")),
    "installer": importlib.metadata.distribution("kvpage").read_text("INSTALLER"),
    "source": importlib.metadata.distribution("kvpage").read_text("PYODIDE_SOURCE"),
    "modules": modules,
})
`;

async function main(argv) {
  const options = parseArgs(argv);
  const version = checkPyodide();
  const wheel = siteWheel(options.site);
  const tools = testWheels(options.wheels);
  const tests = testFiles(options.project);

  // Pyodide reads packages from disk under Node. It gets a private copy of the bytes hashed above,
  // so what is installed is exactly what was checked, and fetch is refused so that nothing (such
  // as Pyodide's fallback to its CDN for a package it cannot find) can reach the network.
  const stage = mkdtempSync(join(tmpdir(), "kvpage-pyodide-"));
  globalThis.fetch = async (input) => {
    throw new Error(`no network in the Pyodide tests (asked for ${input})`);
  };
  try {
    for (const { name, bytes } of [wheel, ...tools]) writeFileSync(join(stage, name), bytes);
    const { loadPyodide } = await import(join(PYODIDE_DIR, "pyodide.mjs"));
    const quiet = () => {};
    const pyodide = await loadPyodide({
      indexURL: PYODIDE_DIR,
      // Our wheel goes in as the site installs it: by name, through the site's own lock file.
      lockFileContents: wheel.lock,
      packageBaseUrl: stage,
      packageCacheDir: stage,
      packages: ["kvpage"],
      stdout: quiet,
      stderr: (line) => process.stderr.write(`${line}\n`),
    });
    // pytest and its dependencies are test tools, not part of the site: installed by path.
    await pyodide.loadPackage(tools.map(({ name }) => join(stage, name)), { messageCallback: quiet });
    const write = (stream) => ({ write: (buffer) => (stream.write(buffer), buffer.length) });
    pyodide.setStdout(write(process.stdout));
    pyodide.setStderr(write(process.stderr));
    for (const [path, bytes] of tests) {
      pyodide.FS.mkdirTree(dirname(`${WORKDIR}/${path}`));
      pyodide.FS.writeFile(`${WORKDIR}/${path}`, bytes);
    }
    const python = pyodide.runPython("import sys; sys.version.split()[0]");
    const lockName = relative(process.cwd(), wheel.lockPath);
    console.log(`Pyodide ${version}, Python ${python}: ${wheel.name} sha256 ${wheel.sha256} (matches ${lockName})`);

    pyodide.globals.set("pytest_args", pyodide.toPy([...options.pytestArgs, "-p", "no:cacheprovider"]));
    const code = pyodide.runPython(`
import os, sys, pytest
os.chdir(${JSON.stringify(WORKDIR)})
code = int(pytest.main(list(pytest_args)))
sys.stdout.flush(); sys.stderr.flush()
code
`);
    if (options.record) {
      const record = JSON.parse(pyodide.runPython(RECORD_PY));
      const served = { file: wheel.path, sha256: wheel.sha256, lock: wheel.lockPath };
      const json = JSON.stringify({ pyodide: version, exit_code: code, wheel: served, ...record }, null, 2);
      writeFileSync(options.record, `${json}\n`);
    }
    return code;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // 2, not 1: a runner that could not run is not "some tests failed".
  console.error(error instanceof SetupError ? `run.mjs: ${error.message}` : error);
  process.exitCode = 2;
}
