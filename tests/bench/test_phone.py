"""bench/phone.py: the phone figure's network presets, its floor and its table (no browser here;
``bench/phone.py --quick`` runs it, about a minute, most of it stock Pyodide on Fast 4G)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import phone


@pytest.mark.parametrize("network", phone.NETWORKS, ids=lambda network: network.name)
def test_the_floor_is_the_bytes_at_the_rate_the_browser_is_given(network: phone.Network) -> None:
    """The floor and the shaping are one rate: the bytes the page received, at the download
    throughput DevTools is told (bytes per second), take the floor's time."""
    conditions = network.conditions()
    received = 5_610_000
    assert network.floor_ms(received) == pytest.approx(received / conditions["downloadThroughput"] * 1000)
    assert conditions["uploadThroughput"] < conditions["downloadThroughput"]
    assert conditions["latency"] > network.rtt_ms and conditions["offline"] is False


def test_fast_4g_is_the_faster_network() -> None:
    fast, slow = (network.conditions() for network in phone.NETWORKS)
    assert [network.name for network in phone.NETWORKS] == ["Fast 4G", "Slow 4G"]
    assert fast["downloadThroughput"] > slow["downloadThroughput"] and fast["latency"] < slow["latency"]


def test_the_table_shows_medians_against_the_floor_and_never_for_a_page_that_did_not_start() -> None:
    fast = phone.NETWORKS[0]
    runs = [
        phone.PhoneRun("ours", fast.name, live_ms=live, received=received)
        for live, received in ((9_000, 5_600_000), (7_000, 5_600_000), (8_000, 5_620_000))
    ]
    runs.append(phone.PhoneRun("stock", fast.name, failure="The labs could not start"))
    rows = [line.split("|")[1:-1] for line in phone.table(runs, (fast,), ["ours", "stock"]).splitlines()]
    ours, stock = ([cell.strip() for cell in row] for row in rows[2:])
    floor = fast.floor_ms(5_600_000)
    assert ours == ["Fast 4G", "ours", "8.0 s", "5.60 MB", f"{floor / 1000:.1f} s", f"{8_000 / floor:.2f}×"]
    assert stock == ["Fast 4G", "stock", "never", "—", "—", "—"]
