"""Docs stay tied to the code: every rule documented, in README, in `memlint rule`."""
from __future__ import annotations

import re

import pytest

from memlint.rules import all_rules
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
# The rules table: its header, then the rows up to the first line that is not
# one (a row after a paragraph renders as text, not in the table).
TABLE = README.split("| code | name | severity | fires when |\n|---|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
ROWS = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(r"^\| (MEM\d{3}) \| ([\w-]+) \| ([^|]+) \|", TABLE, re.M)}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_rule_is_in_the_readme_table_with_its_name_and_severity(rule):
    assert rule.CODE in ROWS, f"{rule.CODE} missing from README's rules table"
    name, severity = ROWS[rule.CODE]
    assert name == rule.NAME
    assert rule.SEVERITY in severity


def test_readme_lists_no_rule_that_does_not_exist():
    assert set(ROWS) == {r.CODE for r in all_rules()}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_rule_docs_have_every_section(rule):
    doc = rule.__doc__ or ""
    for section in ("Why", "Options", "Fires", "Fix"):
        assert f"{section}" in doc, f"{rule.CODE} docs lack {section}"
    for option in rule.OPTIONS:
        assert option in doc, f"{rule.CODE} docs do not describe option {option}"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_memlint_rule_prints_docs_and_options(rule, cli):
    out = cli("rule", rule.CODE).output
    assert out.startswith(f"{rule.CODE} {rule.NAME}")
    for option in rule.OPTIONS:
        assert f"  {option}: " in out
    # code as markdown writes it, not reStructuredText's ``double`` backticks
    assert "``" not in out and "``" not in cli("rules").output


def test_a_rules_code_is_in_single_backticks(cli):
    assert "Options: `max-lines` (openclaw 500, others 300), `max-bytes`" in cli("rule", "MEM104").output


def test_readme_documents_every_key_of_a_json_finding():
    """`check --format json` is read by scripts: the README says what each key holds."""
    from memlint.finding import Finding

    said = README.split("`--format json` writes a list of findings", 1)[1].split("\n\n", 1)[0]
    keys = Finding("a.md", 1, 1, "MEM001", "frontmatter-missing", "error", "m").to_dict()
    for key in keys:
        assert f"`{key}`" in said, key


def test_root_budget_docs_name_every_preset_that_caps_the_root():
    """The prose says which presets set a line and byte cap: as the presets do."""
    from memlint.presets import PRESETS
    from memlint.rules import root_budget

    said = root_budget.__doc__.split("Options (defaults by preset):", 1)[1].split("``max-chars``", 1)[0]
    for preset, spec in PRESETS.items():
        capped = spec["rules"]["root-budget"]["max-lines"] is not None
        assert (preset in said) == capped, preset


def test_frontmatter_date_fix_does_not_promise_backfill_mends_a_wrong_date():
    """MEM004's fix names `memlint backfill`, which fills a missing or empty
    date only: a wrong one stays, and backfill says nothing of it."""
    from datetime import date

    from memlint.backfill import add_dates
    from memlint.rules import frontmatter_date

    wrong = b"---\nname: a\ncreated: 2026-13-01\n---\nBody\n"
    out = add_dates(wrong, {"created": date(2026, 1, 1), "last_verified": date(2026, 1, 2)}, create_block=False)
    assert out.data.startswith(b"---\nname: a\ncreated: 2026-13-01\n")  # kept as it was
    fix = " ".join(frontmatter_date.__doc__.split("Fix:", 1)[1].split())
    assert "backfill" not in fix or "missing or empty" in fix
