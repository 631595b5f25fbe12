#!/usr/bin/env python3
"""What the page's main thread does while Python starts: a Chromium trace at 4× CPU slowdown.

    .venv/bin/python bench/mainthread.py                 # builds the site; 3 cold runs over http, each then warm
    .venv/bin/python bench/mainthread.py --site site --runs 5
    .venv/bin/python bench/mainthread.py --site site --file  # from disk (file://) instead
    .venv/bin/python bench/mainthread.py --quick         # one run: a smoke test of the harness

Each run is a fresh browser context (cold caches), the CPU slowed 4× (DevTools'
``Emulation.setCPUThrottlingRate``, as Lighthouse's mobile preset and the issue's targets use),
the page served by ``serving.py``. A Chromium trace (``devtools.timeline``, the categories the
Performance panel records) is taken from before navigation until the labs are live
(``kvpage:labs-live``). From it: every task of the page's main thread (``RunTask`` on
``CrRendererMain``) that took longer than 50 ms (a "long task"), with what took most of it
(script by URL and function, parsing, style and layout, GC), the longest, and the total blocking
time (each task's time over 50 ms, added up) from navigation to labs live.

From the page's own timeline (Resource Timing and paint entries): first contentful paint,
DOMContentLoaded, and when each binary of Python's was requested, how it was prioritised
(``fetchpriority`` as Chromium reports it in the trace's ``ResourceSendRequest``) and when its last
byte arrived, so "Python's bytes never delay the text" can be read off.

Then, over http, the same context loads the page again (a **second visit**: the runtime's files are
in the HTTP cache, immutable, and the unpacked wasm, snapshot and wheel in Cache Storage, where the
first visit's worker kept them once Python was up; the bench waits for that) and its labs live is
reported as "warm". ``--json FILE`` writes every run's figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from harness import add_options, workspace  # noqa: E402
from run import CHROMIUM, LAUNCH_ARGS, LIVE_TIMEOUT_MS  # noqa: E402
from serving import serve  # noqa: E402

CPU_SLOWDOWN = 4
LONG_TASK_MS = 50.0
CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "toplevel",
    "v8",
    "v8.execute",
    "blink.user_timing",
    "loading",
]
TIMELINE = """() => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const navigation = performance.getEntriesByType("navigation")[0];
  const binaries = performance.getEntriesByType("resource")
    .filter((entry) => /\\/pyodide\\/.*\\.bin(\\.js)?$/.test(entry.name))
    .map((entry) => ({
      name: entry.name.split("/").pop(),
      start: entry.startTime,
      end: entry.responseEnd,
      bytes: entry.encodedBodySize,
    }));
  return {
    fcp: at("first-contentful-paint"),
    dcl: navigation?.domContentLoadedEventStart ?? null,
    live: at("kvpage:labs-live"),
    decoded: at("kvpage:assets-decoded"),
    binaries,
    status: document.querySelector("[data-role=runtime]")?.textContent ?? "",
  };
}"""


@dataclass
class Task:
    """One long task of the main thread: when (ms from navigation), how long, and what took most of it."""

    start: float
    duration: float
    parts: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class Trace:
    """One cold load (and, over http, a warm second one) and what its trace says."""

    mode: str
    live_ms: float | None = None
    fcp_ms: float | None = None
    dcl_ms: float | None = None
    decoded_ms: float | None = None
    warm_live_ms: float | None = None
    longest_ms: float = 0.0
    longest_starting_ms: float = 0.0
    """The longest task from the first binary's request to labs live: while Python starts."""
    blocking_ms: float = 0.0
    tasks: list[Task] = field(default_factory=list)
    binaries: list[dict[str, Any]] = field(default_factory=list)
    priorities: dict[str, str] = field(default_factory=dict)
    failure: str = ""


KEPT_MS = 15_000
"""How long the second visit waits for the first to have kept Python unpacked in Cache Storage."""


def wait_until_kept(page: Any) -> None:
    """Until the first visit's worker has kept the unpacked binaries in Cache Storage
    (``data-python-cache="kept"`` on ``<html>``), as it will have long before a reader comes back;
    a build that keeps nothing (before issue 18's second-visit work) is waited for in vain, ``KEPT_MS``."""
    from playwright.sync_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):
        page.locator("html[data-python-cache=kept]").wait_for(state="attached", timeout=KEPT_MS)


def label(event: dict[str, Any]) -> str:
    """A trace event's name, with the script URL or function that says whose work it was."""
    data = event.get("args", {}).get("data", {}) or {}
    name = str(event["name"])
    where = data.get("url") or data.get("scriptName") or ""
    if where:
        where = where.rsplit("/", 1)[-1][:60]
    function = data.get("functionName") or ""
    if name in ("FunctionCall", "EvaluateScript", "v8.compile", "v8.compileModule", "EventDispatch", "TimerFire"):
        detail = " ".join(part for part in (where, function, data.get("type", "")) if part)
        return f"{name} {detail}".strip()
    return name


def analyse(events: list[dict[str, Any]], navigation_ts: float | None, until_ms: float | None) -> Trace:
    """The long tasks of the page's main thread in ``events``, from navigation to ``until_ms``."""
    trace = Trace(mode="")
    threads = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("ph") == "M"
        and event.get("name") == "thread_name"
        and event.get("args", {}).get("name") == "CrRendererMain"
    }
    # The page's renderer: the main thread that ran the navigation's ParseHTML.
    parsing = {(e["pid"], e["tid"]) for e in events if e.get("name") == "ParseHTML" and (e["pid"], e["tid"]) in threads}
    main = parsing or threads
    on_main = [e for e in events if (e["pid"], e["tid"]) in main and e.get("ph") == "X" and "dur" in e]
    if navigation_ts is None:
        starts = [e["ts"] for e in on_main if e["name"] == "ParseHTML"]
        navigation_ts = min(starts) if starts else min(e["ts"] for e in on_main)
    end_ts = navigation_ts + until_ms * 1000 if until_ms is not None else float("inf")
    tasks = sorted(
        (e for e in on_main if e["name"] == "RunTask" and navigation_ts <= e["ts"] <= end_ts),
        key=lambda e: e["ts"],
    )
    children = sorted((e for e in on_main if e["name"] != "RunTask"), key=lambda e: e["ts"])
    for task in tasks:
        duration = task["dur"] / 1000
        if duration <= LONG_TASK_MS:
            continue
        inside = [c for c in children if task["ts"] <= c["ts"] and c["ts"] + c["dur"] <= task["ts"] + task["dur"]]
        # Self time per label: each event's duration less that of the events directly inside it.
        own: dict[str, float] = defaultdict(float)
        stack: list[dict[str, Any]] = []
        for event in inside:
            while stack and event["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
                stack.pop()
            if stack:
                own[label(stack[-1])] -= event["dur"] / 1000
            own[label(event)] += event["dur"] / 1000
            stack.append(event)
        covered = (
            sum(
                c["dur"]
                for c in inside
                if not any(
                    p is not c and p["ts"] <= c["ts"] and c["ts"] + c["dur"] <= p["ts"] + p["dur"] for p in inside
                )
            )
            / 1000
        )
        own["(task, unattributed)"] += duration - covered
        parts = sorted(((name, round(ms, 1)) for name, ms in own.items() if ms >= 5), key=lambda item: -item[1])
        trace.tasks.append(
            Task(start=round((task["ts"] - navigation_ts) / 1000, 1), duration=round(duration, 1), parts=parts[:6])
        )
    trace.longest_ms = max((task.duration for task in trace.tasks), default=0.0)
    trace.blocking_ms = round(sum(task.duration - LONG_TASK_MS for task in trace.tasks), 1)
    return trace


def priorities(events: list[dict[str, Any]]) -> dict[str, str]:
    """Each binary's request priority, as Chromium's network stack was told (ResourceSendRequest)."""
    found = {}
    for event in events:
        if event.get("name") == "ResourceSendRequest":
            data = event.get("args", {}).get("data", {}) or {}
            url = str(data.get("url", ""))
            if "/pyodide/" in url:
                found[url.rsplit("/", 1)[-1]] = str(data.get("priority", "?"))
    return found


def navigation_start(events: list[dict[str, Any]]) -> float | None:
    """The trace time (µs) of the page's navigationStart mark, if the trace has one."""
    marks = [e["ts"] for e in events if e.get("name") == "navigationStart" and "blink.user_timing" in e.get("cat", "")]
    return max(marks) if marks else None


def once(browser: Any, url: str, mode: str, work: Path, index: int) -> Trace:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(path=str(HERE / "measure.js"))
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        page.set_default_timeout(LIVE_TIMEOUT_MS)
        out = work / f"trace-{mode}-{index}.json"
        browser.start_tracing(page=page, path=str(out), categories=CATEGORIES)
        try:
            page.goto(url)
            page.evaluate("() => window.__bench.python()")
            found = page.evaluate(TIMELINE)
        finally:
            browser.stop_tracing()
        events = json.loads(out.read_text(encoding="utf-8"))
        events = events["traceEvents"] if isinstance(events, dict) else events
        trace = analyse(events, navigation_start(events), found["live"])
        trace.mode = mode
        trace.live_ms, trace.fcp_ms, trace.dcl_ms = found["live"], found["fcp"], found["dcl"]
        trace.decoded_ms = found["decoded"]
        trace.binaries = found["binaries"]
        requested = min((binary["start"] for binary in trace.binaries), default=None)
        if requested is not None:
            starting = [task.duration for task in trace.tasks if task.start + task.duration >= requested]
            trace.longest_starting_ms = max(starting, default=0.0)
        trace.priorities = priorities(events)
        if found["live"] is None:
            trace.failure = found["status"]
        elif mode == "http":
            wait_until_kept(page)
            page.goto("about:blank")
            page.goto(url)
            page.evaluate("() => window.__bench.python()")
            trace.warm_live_ms = page.evaluate(TIMELINE)["live"]
        out.unlink()
        return trace
    except Exception as error:  # noqa: BLE001 - a run that breaks is a result to report
        return Trace(mode=mode, failure=f"{type(error).__name__}: {str(error).splitlines()[0]}")
    finally:
        context.close()


def spread(values: list[float | None], unit: str = " ms") -> str:
    known = [value for value in values if value is not None]
    if not known:
        return "—"
    if len(known) == 1:
        return f"{known[0]:,.0f}{unit}"
    return f"{min(known):,.0f}–{max(known):,.0f}{unit} (median {statistics.median(known):,.0f})"


def report(traces: list[Trace]) -> str:
    lines = []
    for mode in sorted({trace.mode for trace in traces}):
        ran = [trace for trace in traces if trace.mode == mode and not trace.failure]
        lines.append(f"## {mode}, CPU {CPU_SLOWDOWN}× slower ({len(ran)} runs)")
        lines.append("")
        lines.append("| figure | value |")
        lines.append("| --- | --- |")
        rows: dict[str, list[float | None]] = {
            "first contentful paint": [t.fcp_ms for t in ran],
            "DOMContentLoaded": [t.dcl_ms for t in ran],
            "binaries decoded (worker)": [t.decoded_ms for t in ran],
            "labs live": [t.live_ms for t in ran],
            "labs live, second visit (warm cache)": [t.warm_live_ms for t in ran],
            "longest main-thread task until live": [t.longest_ms for t in ran],
            "longest main-thread task while Python starts": [t.longest_starting_ms for t in ran],
            f"blocking time until live (tasks' time over {LONG_TASK_MS:.0f} ms)": [t.blocking_ms for t in ran],
            "long tasks until live": [float(len(t.tasks)) for t in ran],
        }
        for name, values in rows.items():
            lines.append(f"| {name} | {spread(values, '' if name.startswith('long tasks') else ' ms')} |")
        first = [b["start"] for t in ran for b in t.binaries]
        last = [max((b["end"] for b in t.binaries), default=None) for t in ran]
        lines.append(f"| first binary requested | {spread(first)} |")
        lines.append(f"| last binary's last byte | {spread(last)} |")
        lines.append("")
        for number, trace in enumerate(ran, 1):
            binaries = ", ".join(
                f"{b['name'].split('.')[0]} {b['start']:.0f}–{b['end']:.0f} ms ({trace.priorities.get(b['name'], '?')})"
                for b in trace.binaries
            )
            lines.append(f"run {number}: binaries {binaries or 'none fetched'}")
            for task in trace.tasks:
                parts = "; ".join(f"{name} {ms:.0f}" for name, ms in task.parts)
                lines.append(f"  task at {task.start:,.0f} ms: {task.duration:,.0f} ms — {parts}")
        lines.append("")
    for trace in traces:
        if trace.failure:
            lines.append(f"failed ({trace.mode}): {trace.failure}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_options(
        parser,
        3,
        runs_help="cold runs",
        quick_help="one run: a smoke test of the harness",
        work_help="the build and traces",
    )
    parser.add_argument("--file", action="store_true", help="open the page from disk (file://) instead of http")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else args.runs

    from playwright.sync_api import sync_playwright

    with workspace(args, "kvpage-trace-") as (work, site):
        traces = []
        with contextlib.ExitStack() as stack:
            base = stack.enter_context(serve(site))
            playwright = stack.enter_context(sync_playwright())
            launch: dict[str, Any] = {"args": LAUNCH_ARGS}
            if CHROMIUM.exists():
                launch["executable_path"] = str(CHROMIUM)
            browser = playwright.chromium.launch(**launch)
            mode = "file" if args.file else "http"
            url = (site / "cache.html").as_uri() if args.file else base + "cache.html"
            for index in range(runs):
                trace = once(browser, url, mode, work, index)
                traces.append(trace)
                shown = f"{trace.live_ms:,.0f} ms" if trace.live_ms is not None else f"never ({trace.failure[:80]})"
                print(
                    f"run {index + 1}/{runs} {mode}: labs live {shown}, longest task {trace.longest_ms:,.0f} ms",
                    file=sys.stderr,
                )
            browser.close()
        print(report(traces))
        if args.json:
            args.json.write_text(json.dumps([asdict(trace) for trace in traces], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
