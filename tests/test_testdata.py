"""The sample stores report exactly the defects their READMEs list."""
from __future__ import annotations

import re
import shutil

import pytest

from tests.conftest import TESTDATA

STORES = sorted(p.name for p in TESTDATA.iterdir() if p.is_dir() and (p / "README.md").is_file() and p.name != "bad")
ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*(\d+)\s*\|\s*(MEM\d{3})\s*\|")


def planted(store: str) -> set[tuple[str, int, str]]:
    rows = set()
    for line in (TESTDATA / store / "README.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows.add((m.group(1), int(m.group(2)), m.group(3)))
    return rows


def test_every_preset_has_a_sample_store():
    assert {"clean", "claude-code", "openclaw", "moc", "three-layer"} <= set(STORES)


@pytest.mark.parametrize("store", STORES)
def test_sample_store_reports_exactly_its_planted_defects(store, tmp_path, findings):
    # A copy outside any git repository: paths print relative to the store.
    copy = tmp_path / store
    shutil.copytree(TESTDATA / store, copy)
    got = set(findings(copy, "--today", "2026-11-30"))
    assert got == planted(store)


def test_clean_store_has_no_findings_and_exits_zero(tmp_path, cli):
    copy = tmp_path / "clean"
    shutil.copytree(TESTDATA / "clean", copy)
    result = cli("check", copy, "--today", "2026-11-30")
    assert result.exit_code == 0
    assert result.output == ""
