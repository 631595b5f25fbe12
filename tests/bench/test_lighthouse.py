"""bench/lighthouse.py's reading of Lighthouse reports (the runs themselves are the bench's, not the suite's).

A Lighthouse run takes ~15 s of both cores: ``bench/lighthouse.py --quick`` is the smoke run, and
``bench/figures.py --only lighthouse`` the measurement. Here: what it takes from a report.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import lighthouse

BASE = "http://127.0.0.1:4321/"


def report(**audits: dict[str, Any]) -> dict[str, Any]:
    """A Lighthouse report of the shape ``--output=json`` writes, cut to what the bench reads."""
    every = {
        "first-contentful-paint": {"score": 0.9, "numericValue": 812.5},
        "largest-contentful-paint": {"score": 0.8, "numericValue": 1171.0},
        "total-blocking-time": {"score": 0.15, "numericValue": 1881.0, "title": "Total Blocking Time"},
        "cumulative-layout-shift": {"score": 1, "numericValue": 0.0},
        "speed-index": {"score": 1, "numericValue": 880.0},
        "total-byte-weight": {"score": 1, "numericValue": 7_120_838},
        "deprecations": {"score": 1, "title": "Uses deprecated APIs"},
        "valid-source-maps": {"score": 0, "title": "Missing source maps"},
        "meta-description": {"score": 1, "title": "Document has a meta description"},
        "network-requests": {"details": {"items": [{"url": BASE + "cache.html"}, {"url": "data:,"}]}},
        **audits,
    }
    refs = {
        "performance": [("total-blocking-time", 30), ("first-contentful-paint", 10)],
        "accessibility": [],
        "best-practices": [("deprecations", 5), ("valid-source-maps", 0)],
        "seo": [("meta-description", 1)],
    }
    categories = {
        name: {"score": score, "auditRefs": [{"id": audit, "weight": weight} for audit, weight in refs[name]]}
        for name, score in (("performance", 0.73), ("accessibility", 1), ("best-practices", 0.82), ("seo", 0.9))
    }
    return {"audits": every, "categories": categories}


def test_scores_metrics_and_the_failing_weighted_audits_are_read() -> None:
    deprecated = {
        "score": 0,
        "title": "Uses deprecated APIs",
        "details": {"items": [{"value": "`SharedArrayBuffer` will require …", "source": {"url": BASE + "p/a.js"}}]},
    }
    run = lighthouse.summarise(report(deprecations=deprecated), "ours", "mobile", BASE)
    assert run.scores == {"performance": 73, "accessibility": 100, "best-practices": 82, "seo": 90}
    assert run.metrics["total-blocking-time"] == 1881.0 and run.metrics["total-byte-weight"] == 7_120_838
    assert [audit["id"] for audit in run.failing["performance"]] == ["total-blocking-time"]
    # valid-source-maps fails too, but weighs nothing: not a deduction
    assert run.failing["best-practices"] == [
        {
            "id": "deprecations",
            "title": "Uses deprecated APIs",
            "score": 0,
            "items": ["`SharedArrayBuffer` will require … at p/a.js"],
        }
    ]
    assert run.requests == 2 and run.outside == [] and run.failure == ""


def test_a_request_outside_the_local_server_fails_the_run() -> None:
    requests = {"details": {"items": [{"url": BASE + "cache.html"}, {"url": "https://fonts.example/x.woff2"}]}}
    run = lighthouse.summarise(report(**{"network-requests": requests}), "ours", "mobile", BASE)
    assert run.outside == ["https://fonts.example/x.woff2"]
    assert "outside the local server" in run.failure


def test_the_table_shows_ranges_with_medians_per_page() -> None:
    runs = [lighthouse.summarise(report(), "ours", "mobile", BASE) for _ in range(3)]
    runs[0].scores["performance"], runs[2].scores["performance"] = 61, 95
    runs.append(lighthouse.Run(page="stock", preset="mobile", failure="RuntimeError: protocol timeout"))
    rows = {
        line.split("|")[1].strip(): line.split("|")[2:-1]
        for line in lighthouse.table(runs, ["ours", "stock"], "mobile").splitlines()
    }
    assert rows["performance"][0].strip() == "61–95 (median 73)"
    assert rows["performance"][1].strip() == "—"  # a failed run counts for nothing
    assert rows["total bytes"][0].strip() == "7.12 MB–7.12 MB (median 7.12 MB)"
    assert rows["cumulative layout shift"][0].strip() == "0.000–0.000 (median 0.000)"


def test_failing_audits_are_gathered_over_runs_and_presets() -> None:
    mobile = lighthouse.summarise(report(), "ours", "mobile", BASE)
    desktop = lighthouse.summarise(report(), "ours", "desktop", BASE)
    found = lighthouse.failing_audits([mobile, desktop], "ours")
    assert found == {
        "performance/total-blocking-time": {
            "title": "Total Blocking Time",
            "presets": ["mobile", "desktop"],
            "items": [],
        }
    }
    assert json.dumps(found)  # what --json writes
