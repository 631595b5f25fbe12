# Python's side of a reader's Run: what it does and answers is said in worker.js (runReader), whose
# comments the build leaves out of the page; this text is shipped as it is, in the editor's script
# (reader.js), which sends it to the worker.
def kvpage_reader(sources, labs, held={"codes": {}, "texts": {}}):
    import importlib, importlib.abc, importlib.util, json, linecache, re, sys
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

    finder = held.get("finder")
    if finder is None:
        finder = held["finder"] = Finder()
        sys.meta_path.insert(0, finder)

    def install(codes, texts):
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        finder.codes = codes
        for path in [path for path in linecache.cache if path.startswith("kvpage/")]:
            del linecache.cache[path]
        for path, text in texts.items():
            linecache.cache[path] = (len(text), None, text.splitlines(True), path)
        importlib.invalidate_caches()
        return importlib.import_module("kvpage.bridge")

    frame = re.compile(r'  File "([^"]+)", line (\d+), in (.+)\n((?:    .*\n)*)')
    def frames(text):
        shown = []
        for file, line, where, code in frame.findall(text):
            at = file.find("kvpage/")
            if at < 0 or file.endswith("kvpage/bridge.py"):
                continue
            lines = [line for line in code.splitlines() if line.strip() and set(line.strip()) - set("^~")]
            shown.append(f"{file[at:]}, line {line}, in {where}" + "".join(f"\n{line}" for line in lines[:1]))
        return shown[-12:]

    def failed(error, trace=""):
        install(held["codes"], held["texts"])
        found = {"ok": False, "error": error}
        if trace:
            found["frames"] = frames(trace)
        return json.dumps(found)

    texts = json.loads(sources)
    codes = {}
    for path, text in texts.items():
        if not re.fullmatch(r"kvpage/(labs/)?[a-z_]+\.py", path) or path == "kvpage/bridge.py":
            return json.dumps({"ok": False, "error": f"{path} is not a file of the model Run can replace"})
        if len(text) > cap:
            return json.dumps({"ok": False, "error": f"{path} has {len(text):,} characters; Run takes at most {cap:,} a file", "path": path})
        try:
            codes[path] = compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            line, col = error.lineno or 1, error.offset or 1
            message = f"{path}:{line}:{col}: {type(error).__name__}: {error.msg}"
            return json.dumps({"ok": False, "error": message, "path": path, "line": line, "col": col, "text": (text.splitlines()[line - 1:line] or [""])[0]})
        except (MemoryError, RecursionError, ValueError) as error:
            return json.dumps({"ok": False, "error": f"{path} could not be compiled: {type(error).__name__}: {error}", "path": path})
    import traceback
    try:
        bridge = install(codes, texts)
    except BaseException as error:
        if not isinstance(error, Exception):
            raise
        return failed(f"your model does not import: {type(error).__name__}: {error}", traceback.format_exc())
    replies = []
    for lab in json.loads(labs):
        try:
            text = bridge.handle(lab["request"])
        except Exception as error:  # the bridge itself replaced by the reader: still a message
            return failed(f"the model failed: {type(error).__name__}: {error}", traceback.format_exc())
        reply = json.loads(text)
        name = json.loads(lab["request"])["lab"]
        if not reply.get("ok"):
            return failed(f"lab {name!r}: {reply.get('error')}", reply.get("traceback", ""))
        view = reply.get("result")
        group = lambda key: view.get(key) if isinstance(view, dict) and isinstance(view.get(key), dict) else {}
        lacks = [f"text {key!r}" for key in lab["texts"] if not isinstance(group("text").get(key), str)]
        lacks += [f"part {key!r}" for key in lab["parts"] if not isinstance(group("parts").get(key), (list, str))]
        if lacks:
            return failed(f"lab {name!r}: the view lacks {', '.join(lacks)}")
        replies.append(text)
    held["codes"], held["texts"] = codes, texts
    return json.dumps({"ok": True, "replies": replies})
kvpage_reader
