"""The renderer of the docs' figure blocks, on sample data: ranges, provenance, markers.

No timing is measured here; the sample numbers are made up and only their formatting is checked.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import figures_blocks as blocks

MACHINE = {
    "cpu": "Sample CPU 9000",
    "cores": 2,
    "memory_gib": 23.4,
    "os": "Debian GNU/Linux 12 (bookworm), Linux 6.1.0",
    "chromium": "156.0.1.2",
    "node": "v20.20.2",
    "python": "3.11.2",
    "pyodide": "0.0.9",
}


def run(step: str, date: str = "2026-12-01 10:00 UTC") -> dict[str, Any]:
    return {
        "command": ".venv/bin/python bench/figures.py --quick",
        "step": step,
        "date": date,
        "load_before": [6.1, 5.5, 3.25],
        "load_after": [7.0, 6.0, 4.0],
        "machine": MACHINE,
    }


def build_run(seconds: float, steps: dict[str, float]) -> dict[str, Any]:
    return {"seconds": seconds, "steps": steps}


SAMPLE: dict[str, Any] = {
    "measurements": {
        "build": {
            "run": run(".venv/bin/python bench/rebuild.py --runs 3"),
            "data": {
                "cold": [build_run(20.0, {"runtime": 12.5, "zip": 3.0}), build_run(24.0, {"runtime": 15.0})],
                "warm": [
                    build_run(5.0, {"zip": 2.5, "single": 1.0}),
                    build_run(7.0, {"zip": 4.9, "single": 1.2}),
                    build_run(6.0, {"zip": 3.1, "single": 1.1}),
                ],
                "serve": [0.02, 0.04, 0.03],
                "sizes": {"zip": 17_900_000, "single": 28_900_000, "site": 49_600_000},
            },
        },
        "serve": {
            "run": run(".venv/bin/python bench/serve_reload.py --runs 3"),
            "data": {
                "prose": [0.25, 0.19, 0.3],
                "model": [1.5, 1.75],
            },
        },
        "labs": {
            "run": run(".venv/bin/python bench/run.py --runs 3 --json $TMP/labs.json"),
            "data": {
                "browser": "Chromium",
                "runs": 3,
                "samples": 5,
                "pages": {
                    "ours http": {
                        "live_ms": [600.0, 700.0, 650.0],
                        "fcp_ms": [130.0, 140.0, 150.0],
                        "interactions": {"slider latency": {"p50": 1.8, "p95": 6.8}},
                    },
                    "stock http": {"live_ms": [2000.0, 2600.0, 2200.0], "fcp_ms": [140.0], "interactions": {}},
                },
                "failures": ["stock file: The labs could not start"],
                "bytes": {"bytes loaded, raw": {"ours http": "21.85 MB", "ours file://": "28.69 MB"}},
            },
        },
    }
}


def test_a_time_is_a_range_with_its_median_and_count() -> None:
    assert blocks.seconds([0.25, 0.19, 0.3]) == "0.19–0.30 s (median 0.25 s, 3 runs)"
    assert blocks.seconds([4.0, 2.0]) == "2.00–4.00 s (median 3.00 s, 2 runs)"
    assert blocks.seconds([1.234]) == "1.23 s (1 run)"
    assert blocks.seconds([]) == "not measured"
    assert blocks.millis([1500.0, 2600.4, 2200.0]) == "1,500–2,600 ms (median 2,200 ms, 3 runs)"
    assert blocks.megabytes(17_949_999) == "17.9 MB"


def test_the_speed_block_shows_every_figure_of_the_data() -> None:
    text = blocks.render_speed(SAMPLE)
    assert "| prose edit saved → new text on the open page" in text
    assert "0.19–0.30 s (median 0.25 s, 3 runs)" in text  # prose
    assert "0.02–0.04 s (median 0.03 s, 3 runs)" in text  # serve's rebuild
    assert "without a reload (`bench/serve_reload.py`) | 1.50–1.75 s (median 1.62 s, 2 runs) |" in text  # model edit
    assert "5.00–7.00 s (median 6.00 s, 3 runs)" in text  # build after a prose edit
    assert "zipping the site (17.9 MB `dist/kvpage-site.zip`) | 2.50–4.90 s (median 3.10 s, 3 runs)" in text
    assert "single file (28.9 MB `dist/kvpage.html`) | 1.00–1.20 s (median 1.10 s, 3 runs)" in text
    assert "20.00–24.00 s (median 22.00 s, 2 runs)" in text  # --no-cache
    assert "runtime stage | 12.50–15.00 s (median 13.75 s, 2 runs)" in text


def test_a_block_says_what_measured_it_where_and_at_which_load() -> None:
    text = blocks.render_speed(SAMPLE)
    assert "Measured by `.venv/bin/python bench/figures.py --quick` on Sample CPU 9000, 2 cores, 23.4 GiB" in text
    assert "Chromium 156.0.1.2, Node v20.20.2, Python 3.11.2, Pyodide 0.0.9" in text
    assert "- serve: `.venv/bin/python bench/serve_reload.py --runs 3`, 2026-12-01 10:00 UTC" in text
    assert "load average (1, 5, 15 min) 6.10 / 5.50 / 3.25 before, 7.00 / 6.00 / 4.00 after" in text
    assert "- build: `.venv/bin/python bench/rebuild.py --runs 3`" in text


def test_measurements_from_different_commands_are_listed_apart() -> None:
    figures = copy.deepcopy(SAMPLE)
    figures["measurements"]["serve"]["run"]["command"] = ".venv/bin/python bench/figures.py --only serve"
    text = blocks.render_speed(figures)
    assert text.count("Measured by ") == 2
    assert "Measured by `.venv/bin/python bench/figures.py --only serve`" in text


def test_the_labs_block_has_every_way_of_opening_against_stock() -> None:
    text = blocks.render_labs(SAMPLE)
    header = text.splitlines()[0]
    assert header == "|  | ours http | ours file:// | single file | stock http |"
    assert "| labs live | 600–700 ms (median 650 ms, 3 runs) | not measured | not measured | 2,000–2,600 ms" in text
    assert "| labs live, median ÷ stock http's | 0.30× | — | — | 1.00× |" in text
    assert "| slider key p50 / p95 | 1.8 / 6.8 ms | — | — | — |" in text
    assert "| bytes loaded, raw | 21.85 MB | 28.69 MB | — | — |" in text
    assert "Never live: stock file: The labs could not start" in text
    assert "In Chromium: 3 cold runs" in text


def test_the_labs_renderer_takes_another_measurement_of_the_same_shape() -> None:
    figures = copy.deepcopy(SAMPLE)
    figures["measurements"]["labs-webkit"] = figures["measurements"].pop("labs")
    figures["measurements"]["labs-webkit"]["data"]["browser"] = "WebKit"
    text = blocks.render_labs(figures, "labs-webkit")
    assert "In WebKit: 3 cold runs" in text
    assert "- labs-webkit: " in text


def test_the_make_test_block_shows_the_warm_checkout_and_the_fresh_clone() -> None:
    figures = copy.deepcopy(SAMPLE)
    data = {"seconds": [300.0, 320.0], "fresh_clone_seconds": [350.0], "commit": "0123456789abcdef0123"}
    figures["measurements"]["make-test"] = {"run": run("make test"), "data": data}
    text = blocks.render_make_test(figures)
    assert "installed and caches warm | 300.00–320.00 s (median 310.00 s, 2 runs) |" in text
    assert "runtime built from nothing) | 350.00 s (1 run) |" in text
    assert "The fresh clone was of commit 0123456789ab." in text
    assert "- make-test: `make test`, 2026-12-01 10:00 UTC" in text


def test_an_older_make_test_measurement_without_a_fresh_clone_says_so() -> None:
    figures = copy.deepcopy(SAMPLE)
    figures["measurements"]["make-test"] = {"run": run("make test"), "data": {"seconds": [495.0]}}
    text = blocks.render_make_test(figures)
    assert "runtime built from nothing) | not measured |" in text
    assert "fresh clone was of" not in text


def search_book(chapters: int, script: int, words: int) -> dict[str, Any]:
    return {
        "chapters": chapters,
        "sections": 4 * chapters,
        "words": words,
        "terms": 150 * chapters,
        "text_bytes": 2000 * chapters,
        "script_bytes": script,
        "script_gzip_bytes": script // 4,
        "library_bytes": 87_436,
        "library_gzip_bytes": 19_244,
        "documents_only_bytes": 2100 * chapters,
        "documents_only_gzip_bytes": 700 * chapters,
        "index_seconds": 0.1 * chapters,
    }


SEARCH = {
    "run": run(".venv/bin/python bench/search.py --runs 3 --json $TMP/search.json"),
    "data": {
        "browser": "Chromium 156.0.1.2",
        "queries": ["prefill", "kavelo"],
        "books": {
            "this book": search_book(1, 95_100, 303),
            "generated, 50 chapters": search_book(50, 2_252_341, 175_868),
        },
        "keystroke_ms": {"count": 240, "p50": 3.14, "p95": 7.0, "max": 38.25},
        "first_results_ms": [200.0, 190.0, 230.0],
        "load_ms": [16.5, 17.0, 20.0],
        "index_in_browser_ms": [150.0, 160.0, 170.0],
    },
}


def test_the_search_block_has_both_books_and_the_keystrokes() -> None:
    figures = copy.deepcopy(SAMPLE)
    figures["measurements"]["search"] = SEARCH
    text = blocks.render_search(figures)
    assert text.splitlines()[0] == "|  | this book (1 chapter) | generated, 50 chapters |"
    assert "| sections, words, terms | 4, 303, 150 | 200, 175,868, 7,500 |" in text
    assert "single file) | 95.1 kB / 23.8 kB | 2,252.3 kB / 563.1 kB |" in text
    assert "| … of which MiniSearch itself | 87.4 kB / 19.2 kB | 87.4 kB / 19.2 kB |" in text
    assert "over every section) | 0.10 s | 5.00 s |" in text
    assert "(goal ≤ 50 ms) | 3.1 / 7.0 / 38.2 ms (240 keystrokes) |" in text
    assert "(the index loads on focus) | 190–230 ms (median 200 ms, 3 runs) |" in text
    assert "(`addAll`) | 150–170 ms (median 160 ms, 3 runs) |" in text
    assert "In Chromium 156.0.1.2, over http" in text and "“prefill”, “kavelo”" in text
    assert "- search: `.venv/bin/python bench/search.py --runs 3 --json $TMP/search.json`" in text


def test_the_search_summary_is_a_sentence_of_the_same_figures() -> None:
    figures = copy.deepcopy(SAMPLE)
    figures["measurements"]["search"] = SEARCH
    text = blocks.render_search_summary(figures)
    assert text.startswith("The search script is 95.1 kB (23.8 kB gzipped, 87.4 kB of it MiniSearch) for this book")
    assert "2,252.3 kB (563.1 kB) for a generated book of 50 chapters and 175,868 words" in text
    assert "3.1 ms at the median, 7.0 ms at p95 and 38.2 ms at the slowest (goal ≤ 50 ms) in Chromium 156.0.1.2" in text
    assert "Measured by `.venv/bin/python bench/figures.py --quick`" in text


def test_a_missing_measurement_says_how_to_make_it() -> None:
    assert blocks.render_make_test(SAMPLE) == (
        "Not measured yet: run `.venv/bin/python bench/figures.py --only make-test --with-make-test`."
    )
    assert blocks.render_labs({"measurements": {}}) == "Not measured yet: run `.venv/bin/python bench/figures.py`."
    assert "not measured" in blocks.render_sizes({"measurements": {}})
    assert blocks.render_search({"measurements": {}}).startswith("Not measured yet")
    assert blocks.render_search_summary({"measurements": {}}).startswith("Not measured yet")


def test_the_sizes_block() -> None:
    text = blocks.render_sizes(SAMPLE)
    assert "| bytes loaded, raw: over http / from file:// (stock http) | 21.85 MB / 28.69 MB (—) |" in text
    assert "| `dist/kvpage-site.zip` (goal: ≤ 12 MB) | 17.9 MB |" in text
    assert "the site folder" in text and "49.6 MB" in text


def test_the_bytes_block_sets_now_against_before_stock_and_the_goals() -> None:
    figures = copy.deepcopy(SAMPLE)
    labs = figures["measurements"]["labs"]["data"]
    assert blocks.render_bytes(figures).startswith("Measured by")  # an older labs measurement: no sizes, no table
    labs["pages"]["ours http"] |= {"received_live": [7_120_000, 7_120_000], "received_all": [7_120_000]}
    labs["pages"]["before http"] = {"received_live": [7_220_000, 7_230_000], "received_all": [7_980_000]}
    labs["pages"]["stock http"] |= {"received_live": [12_450_000]}
    labs["sizes"] = {
        "ours": {"zip": 7_200_000, "single": 10_400_000},
        "before": {"zip": 8_100_000, "single": 11_600_000},
    }
    labs["before"] = "528d0e4c0ffee528d0e4"
    text = blocks.render_bytes(figures)
    assert text.splitlines()[0] == "|  | before (528d0e4c0ffe) | now | stock Pyodide | goal |"
    assert (
        "| bytes received until the labs are live, over http (text gzipped) | 7.22 MB–7.23 MB (median 7.22 MB, 2 runs)"
        " | 7.12 MB (2 runs) | 12.45 MB | ≤ 6.0 MB |"
    ) in text
    assert "| `dist/kvpage-site.zip` | 8.10 MB | 7.20 MB | — | ≤ 7 MB |" in text
    assert "| `dist/kvpage.html`, the single file | 11.60 MB | 10.40 MB | — | ≤ 10 MB |" in text
    assert "- labs: " in text


def test_the_lighthouse_block_shows_both_presets_the_goals_and_the_deductions() -> None:
    scores = {"performance": [61, 73, 75], "accessibility": [100] * 3, "best-practices": [100] * 3, "seo": [100] * 3}
    metrics = {"total-blocking-time": [1300.0, 1881.4, 4300.0], "cumulative-layout-shift": [0.0] * 3}
    stock = {"scores": {"best-practices": [82]}, "metrics": {"total-byte-weight": [12_460_000.0]}}
    data = {
        "runs": 3,
        "pages": {"ours": {"mobile": {"scores": scores, "metrics": metrics}}, "stock": {"desktop": stock}},
        "failing": {
            "stock": {
                "best-practices/deprecations": {
                    "title": "Uses deprecated APIs",
                    "presets": ["mobile", "desktop"],
                    "items": ["`SharedArrayBuffer` will require cross-origin isolation. at pyodide/pyodide.asm.mjs"],
                }
            }
        },
        "requests": 120,
        "outside": 0,
        "retried": 1,
        "failures": [],
    }
    figures = {
        "measurements": {"lighthouse": {"run": run(".venv/bin/python bench/lighthouse.py --runs 3"), "data": data}}
    }
    text = blocks.render_lighthouse(figures)
    assert "| mobile | now | stock Pyodide | goal |" in text and "| desktop | now | stock Pyodide | goal |" in text
    assert "| performance | 61–75 (median 73, 3 runs) | not measured | ≥ 90 |" in text
    assert "| accessibility | 100 (3 runs) | not measured | 100 |" in text
    assert "| total blocking time | 1,300 ms–4,300 ms (median 1,881 ms, 3 runs) | not measured | ≤ 200 ms |" in text
    assert "| total bytes | not measured | 12.46 MB | |" in text.replace("|  |", "| |")
    assert "- now: none" in text
    assert "  - best-practices/deprecations (Uses deprecated APIs; mobile, desktop): “SharedArrayBuffer will" in text
    assert "requests checked: 120, outside the local server: 0; runs tried again after a Lighthouse error: 1." in text
    assert "- lighthouse: `.venv/bin/python bench/lighthouse.py --runs 3`" in text


def test_the_mainthread_block_shows_each_figure_against_its_goal() -> None:
    data = {
        "fcp_ms": [500.0, 700.0],
        "dcl_ms": [700.0, 760.0],
        "live_ms": [1940.0, 2190.0],
        "warm_live_ms": [1200.0, 1415.0],
        "longest_ms": [216.0, 321.0],
        "longest_starting_ms": [66.0, 164.0],
        "blocking_ms": [396.0, 466.0],
        "requested_ms": [793.0, 911.0],
        "arrived_ms": [1015.0, 1089.0],
        "priorities": ["Low"],
        "runs": 2,
        "failures": ["TimeoutError: no labs"],
    }
    figures = {
        "measurements": {"mainthread": {"run": run(".venv/bin/python bench/mainthread.py --runs 2"), "data": data}}
    }
    text = blocks.render_mainthread(figures)
    assert "| over http, CPU 4× slower | measured | goal |" in text
    assert (
        "| labs live, second visit (warm HTTP cache) | 1,200–1,415 ms (median 1,308 ms, 2 runs) | ≤ 1,000 ms |" in text
    )
    assert "| longest main-thread task while Python starts | 66–164 ms (median 115 ms, 2 runs) | ≤ 200 ms |" in text
    assert "| Python's first binary requested | 793–911 ms (median 852 ms, 2 runs) | after the first paint |" in text
    assert "requested at priority: Low" in text
    assert "Failed: TimeoutError: no labs" in text
    assert "- mainthread: `.venv/bin/python bench/mainthread.py --runs 2`" in text


def markers(name: str) -> tuple[str, str]:
    return blocks.BEGIN.format(name=name), blocks.END.format(name=name)


def test_fill_rewrites_only_between_the_markers() -> None:
    begin, end = markers("speed")
    text = f"# Title\n\nbefore\n{begin}\n| 1.0 s | typed by hand |\n{end}\nafter\n"
    filled = blocks.fill(text, SAMPLE)
    assert filled.startswith(f"# Title\n\nbefore\n{begin}\n\n| ")
    assert filled.endswith(f"\n\n{end}\nafter\n")
    assert "typed by hand" not in filled
    assert blocks.fill(filled, SAMPLE) == filled  # rendering is a fixed point


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{b_speed}\n", "block 'speed' has no end marker"),
        ("{e_speed}\n", "end of 'speed' without its begin"),
        ("{b_speed}\n{b_labs}\n{e_labs}\n{e_speed}\n", "block 'labs' begins inside block 'speed'"),
        ("{b_speed}\n{e_labs}\n", "end of 'labs' without its begin"),
        ("text {b_speed}\n{e_speed}\n", "a figures marker must be a line of its own"),
        ("<!-- figures:speed:begin -->\n{e_speed}\n", "write the begin marker as"),
        ("{b_nothing}\n{e_nothing}\n", "no renderer for block 'nothing'"),
    ],
)
def test_malformed_markers_are_refused(text: str, message: str) -> None:
    names = {"speed", "labs", "nothing"}
    fields = {f"b_{name}": markers(name)[0] for name in names} | {f"e_{name}": markers(name)[1] for name in names}
    with pytest.raises(blocks.BlockError, match=message):
        blocks.blocks_in(text.format(**fields), "README.md")


def test_the_phone_block_sets_each_page_s_live_time_against_its_floor() -> None:
    import phone

    runs = [
        phone.PhoneRun("ours", "Fast 4G", live_ms=6400.0, received=5_840_000),
        phone.PhoneRun("ours", "Fast 4G", live_ms=6600.0, received=5_840_000),
        phone.PhoneRun("stock", "Fast 4G", live_ms=None, failure="TimeoutError: never live"),
        phone.PhoneRun("stock", "Fast 4G", live_ms=20_100.0, received=12_500_000),
    ]
    data = phone.report(runs, phone.NETWORKS[:1])
    figures = {"measurements": {"phone": {"run": run(".venv/bin/python bench/phone.py --runs 2"), "data": data}}}
    text = blocks.render_phone(figures)
    floor = phone.NETWORKS[0].floor_ms(5_840_000) / 1000  # the harness's own floor: the same formula
    assert "| network | page | labs live | received until live | floor (bytes ÷ bandwidth) |" in text
    ours = f"| Fast 4G | ours | 6.40–6.60 s (median 6.50 s, 2 runs) | 5.84 MB (2 runs) | {floor:.2f} s (2 runs) |"
    assert ours in text
    assert "| Fast 4G | stock | 20.10 s (1 run); never in 1 | 12.50 MB |" in text
    assert "CPU 4× slower" in text
    assert "Failed: stock Fast 4G: TimeoutError: never live" in text
    assert "- phone: `.venv/bin/python bench/phone.py --runs 2`" in text


def test_the_book_size_block_shows_each_book_and_the_slope_per_chapter() -> None:
    def book(chapters: int, cpu: list[float], peak: float) -> dict[str, Any]:
        builds = [{"seconds": value * 2, "cpu": value, "peak_mb": peak} for value in cpu]
        return {"chapters": chapters, "builds": builds, "serve": [{"seconds": 0.5, "cpu": 0.25}]}

    figures = copy.deepcopy(SAMPLE)
    books = [book(1, [1.0], 120.0), book(100, [2.0, 3.0], 300.0), book(500, [7.0, 8.0, 9.0], 480.0)]
    figures["measurements"]["book-size"] = {"run": run("bench/book_size.py"), "data": {"books": books}}
    text = blocks.render_book_size(figures)
    assert "| 500 | 14.00–18.00 s (median 16.00 s, 3 runs) | 7.00–9.00 s (median 8.00 s, 3 runs) | 480 MB |" in text
    assert "| 0.50 s (1 run); 0.25 s (1 run) CPU |" in text
    assert "13.8 CPU-ms per chapter" in text  # the medians, 8.0 - 2.5 CPU-s, over 400 chapters
