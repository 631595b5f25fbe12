# Python's side of a reader's Run: what it does and answers is said in worker.js (runReader), whose
# comments the build leaves out of the page; this text is shipped as it is, in the editor's script
# (reader.js), which sends it to the worker. It runs once a worker, in a Python no reader's code has
# touched yet: json and the names it answers with are its own before any of that code runs.
def kvpage_reader(sources, labs):
    import importlib, importlib.abc, importlib.util, json, linecache, re, sys, traceback
    dumps, loads = json.dumps, json.loads
    cap = 100_000  # characters a file: the page says so before it sends more (reader.js, CAP)
    ours = lambda name: name == "kvpage" or name.startswith("kvpage.")

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        codes = {}
        def find_spec(self, name, path=None, target=None):
            file = name.replace(".", "/") + ".py"
            if file not in self.codes:
                return None
            return importlib.util.spec_from_loader(name, self, origin=file)
        def create_module(self, spec):
            return None
        def exec_module(self, module):
            module.__file__ = module.__spec__.origin
            exec(self.codes[module.__spec__.origin], module.__dict__)

    def install(codes, texts):
        if not codes:  # the book's model: the snapshot's modules, as they are
            return importlib.import_module("kvpage.bridge")
        finder = Finder()
        finder.codes = codes
        sys.meta_path.insert(0, finder)
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        for path, text in texts.items():
            linecache.cache[path] = (len(text), None, text.splitlines(True), path)
        importlib.invalidate_caches()
        return importlib.import_module("kvpage.bridge")

    # A frame of the model, named as the disclosure names its file (the wheel's path cut off).
    frame = re.compile(r'  File "(?:[^"]*/)?(kvpage/(?:labs/)?\w+\.py)", line (\d+), in (.+)\n((?:    .*\n)*)')
    def frames(text):
        shown = []
        for file, line, where, code in frame.findall(text):
            if file == "kvpage/bridge.py":
                continue
            lines = [line for line in code.splitlines() if line.strip() and set(line.strip()) - set("^~")]
            shown.append(f"{file}, line {line}, in {where}" + "".join(f"\n{line}" for line in lines[:1]))
        return shown[-12:]

    def named(error):
        said = str(error)
        return type(error).__name__ + (f": {said}" if said else "")

    def failed(error, trace=""):
        found = {"ok": False, "error": error}
        if trace:
            found["frames"] = frames(trace)
        return dumps(found)

    texts = loads(sources)
    codes = {}
    for path, text in texts.items():
        if not re.fullmatch(r"kvpage/(labs/)?[a-z_]+\.py", path) or path == "kvpage/bridge.py":
            return dumps({"ok": False, "error": f"{path} is not a file of the model Run can replace"})
        if len(text) > cap:
            return dumps({"ok": False, "error": f"{path} has {len(text):,} characters; Run takes at most {cap:,} a file", "path": path})
        try:
            codes[path] = compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            line, col = error.lineno or 1, error.offset or 1
            message = f"{path}:{line}:{col}: {type(error).__name__}: {error.msg}"
            return dumps({"ok": False, "error": message, "path": path, "line": line, "col": col, "text": (text.splitlines()[line - 1:line] or [""])[0]})
        except (MemoryError, RecursionError, ValueError) as error:
            return dumps({"ok": False, "error": f"{path} could not be compiled: {type(error).__name__}: {error}", "path": path})
    # From here on the reader's code runs: an exit or an interrupt is one more failure to report.
    try:
        bridge = install(codes, texts)
    except BaseException as error:
        return failed(f"your model does not import: {named(error)}", traceback.format_exc())
    replies = []
    for lab in loads(labs):
        name = loads(lab["request"])["lab"]
        try:
            text = bridge.handle(lab["request"])
            reply = loads(text)
        except BaseException as error:  # not the bridge's failures (values): an exit, an interrupt, a patched json
            return failed(f"lab {name!r}: the model failed: {named(error)}", traceback.format_exc())
        if not isinstance(reply, dict) or not reply.get("ok"):
            said = reply.get("error") if isinstance(reply, dict) else None
            return failed(f"lab {name!r}: {said if isinstance(said, str) else f'the model answered {text[:200]!r}'}", reply.get("traceback", "") if isinstance(reply, dict) else "")
        view = reply.get("result")
        group = lambda key: view.get(key) if isinstance(view, dict) and isinstance(view.get(key), dict) else {}
        lacks = [f"text {key!r}" for key in lab["texts"] if not isinstance(group("text").get(key), str)]
        lacks += [f"part {key!r}" for key in lab["parts"] if not isinstance(group("parts").get(key), (list, str))]
        if lacks:
            return failed(f"lab {name!r}: the view lacks {', '.join(lacks)}")
        replies.append(text)
    return dumps({"ok": True, "replies": replies})
kvpage_reader
