#!/usr/bin/env python3
"""Labs live on a phone: 4× CPU slowdown and a shaped network, ours against stock Pyodide.

    .venv/bin/python bench/phone.py                 # builds the site; 3 cold runs of each page on each network
    .venv/bin/python bench/phone.py --site site --runs 1
    .venv/bin/python bench/phone.py --quick         # one run, Fast 4G only: a smoke test of the harness

``bench/figures.py --only phone`` runs it and shows its figures in docs/performance.md.

On a phone the labs come alive at the byte floor: what is sent until they are live, divided by
the bandwidth. Each run opens the page over http (``serving.py``, text gzipped as GitHub Pages
sends it) in a fresh browser context with DevTools' CPU slowdown at 4× (as ``mainthread.py`` and
Lighthouse's mobile preset) and one of DevTools' own network presets, "Fast 4G" or "Slow 4G"
(``Network.emulateNetworkConditions`` with the numbers of Chromium's ``NetworkManager.ts``:
nominal rates times 0.9, round trip times 2.75 or 3.75), alternating the page that goes first.
It prints, per network and page, labs live (navigation start → ``kvpage:labs-live``, median), the
bytes received until then (``run.Received``: the page's and its workers' bodies) and the floor:
those bytes at the preset's shaped download rate. Stock Pyodide is the page ``run.py`` builds.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import add_options, workspace  # noqa: E402
from run import CHROMIUM, LAUNCH_ARGS, Received, build_stock, markdown  # noqa: E402
from serving import serve  # noqa: E402

CPU_SLOWDOWN = 4
THROUGHPUT = 0.9
"""DevTools' presets send 0.9 of their nominal rate."""
TIMEOUT_MS = 300_000
"""Stock Pyodide's 12.5 MB at Slow 4G's 1.44 Mbit/s take over a minute."""


@dataclass(frozen=True)
class Network:
    """One of DevTools' network presets (``front_end/core/sdk/NetworkManager.ts``)."""

    name: str
    down_mbit: float
    up_mbit: float
    rtt_ms: float
    latency_factor: float

    def conditions(self) -> dict[str, Any]:
        """``Network.emulateNetworkConditions``'s parameters, in bytes per second and ms."""
        return {
            "offline": False,
            "downloadThroughput": self.down_mbit * 1e6 / 8 * THROUGHPUT,
            "uploadThroughput": self.up_mbit * 1e6 / 8 * THROUGHPUT,
            "latency": self.rtt_ms * self.latency_factor,
        }

    def floor_ms(self, received: float) -> float:
        """``received`` bytes at the shaped download rate, in ms: no page can be live sooner."""
        return received * 8 / (self.down_mbit * 1e6 * THROUGHPUT) * 1000


NETWORKS = (Network("Fast 4G", 9, 1.5, 60, 2.75), Network("Slow 4G", 1.6, 0.75, 150, 3.75))


@dataclass
class PhoneRun:
    page: str
    network: str
    live_ms: float | None = None
    received: float | None = None
    failure: str = ""


def measure(browser: Any, url: str, page_name: str, network: Network) -> PhoneRun:
    run = PhoneRun(page=page_name, network=network.name)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(path=str(HERE / "measure.js"))
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", network.conditions())
        received = Received()
        context.on("requestfinished", received.add)
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url, timeout=TIMEOUT_MS)
        page.evaluate("() => window.__bench.python()")
        live = page.evaluate('() => performance.getEntriesByName("kvpage:labs-live")[0]?.startTime ?? null')
        if live is None:
            run.failure = page.evaluate('() => document.querySelector("[data-role=runtime]")?.textContent ?? ""')
        else:
            run.live_ms = live
            run.received = received.until(page.evaluate("performance.timeOrigin") + live)
    except Exception as error:  # noqa: BLE001 - a run that breaks is a result to report
        run.failure = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    finally:
        context.close()
    return run


def median(values: list[float | None]) -> float | None:
    found = [value for value in values if value is not None]
    return statistics.median(found) if found else None


def table(runs: list[PhoneRun], networks: tuple[Network, ...], pages: list[str]) -> str:
    """Per network and page: labs live, bytes received until then, the floor and live ÷ floor (medians)."""
    lines = [["network", "page", "labs live", "received until live", "floor (bytes ÷ bandwidth)", "live ÷ floor"]]
    for network in networks:
        for page in pages:
            of = [run for run in runs if run.page == page and run.network == network.name]
            live, received = median([run.live_ms for run in of]), median([run.received for run in of])
            floor = None if received is None else network.floor_ms(received)
            lines.append(
                [
                    network.name,
                    page,
                    "never" if live is None else f"{live / 1000:.1f} s",
                    "—" if received is None else f"{received / 1e6:.2f} MB",
                    "—" if floor is None else f"{floor / 1000:.1f} s",
                    "—" if live is None or not floor else f"{live / floor:.2f}×",
                ]
            )
    return markdown(lines)


def report(runs: list[PhoneRun], networks: tuple[Network, ...]) -> dict[str, Any]:
    """``--json``'s content: every run, and each network's numbers, for ``bench/figures.py`` (the floor
    is ``received × 8 ÷ (down_mbit × 10⁶ × throughput)``)."""
    return {
        "cpu_slowdown": CPU_SLOWDOWN,
        "networks": [{**dataclasses.asdict(network), "throughput": THROUGHPUT} for network in networks],
        "runs": [dataclasses.asdict(run) for run in runs],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_options(
        parser,
        3,
        runs_help="cold runs per page and network",
        quick_help="one run, Fast 4G only: a smoke test of the harness",
        work_help="the builds",
    )
    args = parser.parse_args(argv)
    runs, networks = (1, NETWORKS[:1]) if args.quick else (args.runs, NETWORKS)

    from playwright.sync_api import sync_playwright

    with workspace(args, "kvpage-phone-") as (work, ours):
        sites = {"ours": ours, "stock": build_stock(ours, work)}
        results: list[PhoneRun] = []
        with contextlib.ExitStack() as stack:
            bases = {name: stack.enter_context(serve(folder)) for name, folder in sites.items()}
            playwright = stack.enter_context(sync_playwright())
            launch: dict[str, Any] = {"args": LAUNCH_ARGS}
            if CHROMIUM.exists():
                launch["executable_path"] = str(CHROMIUM)
            browser = playwright.chromium.launch(**launch)
            names = list(sites)
            for index in range(runs):
                order = names[index % len(names) :] + names[: index % len(names)]
                for network in networks:
                    for name in order:
                        run = measure(browser, bases[name] + "cache.html", name, network)
                        results.append(run)
                        shown = f"{run.live_ms:,.0f} ms" if run.live_ms is not None else f"never ({run.failure[:80]})"
                        print(f"run {index + 1}/{runs} {network.name} {name:6}: labs live {shown}", file=sys.stderr)
            browser.close()
        print(table(results, networks, names))
        if args.json:
            args.json.write_text(json.dumps(report(results, networks), indent=1) + "\n", encoding="utf-8")
        print(f"\nruns per page and network: {runs}, fresh browser context each, CPU slowed {CPU_SLOWDOWN}×")
        for run in results:
            if run.failure:
                print(f"never: {run.page} {run.network}: {run.failure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
