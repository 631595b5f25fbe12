# Python's side of a swap (stage "worker", swapModel; the build puts this text in the worker):
# kvpage's modules dropped and imported again from the wheel at `path`, in place of the one at
# `old` on sys.path (the same path when the page starts on a snapshot older than its wheel);
# zipimport forgets what it read of both. If the new model does not import, the old modules and
# path are put back and the error raised: the old model keeps answering. Its value is the function.
def kvpage_swap(path, old):
    import importlib, sys, zipimport
    def forget():
        for known in {path, old}:
            sys.path_importer_cache.pop(known, None)
            getattr(zipimport, "_zip_directory_cache", {}).pop(known, None)
    ours = lambda name: name == "kvpage" or name.startswith("kvpage.")
    kept = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in kept:
        del sys.modules[name]
    at = sys.path.index(old)
    sys.path[at] = path
    forget()
    importlib.invalidate_caches()
    try:
        bridge = importlib.import_module("kvpage.bridge")
    except BaseException:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(kept)
        sys.path[at] = old
        forget()
        raise
    return bridge.handle
kvpage_swap
