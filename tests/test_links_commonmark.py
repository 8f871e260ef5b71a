"""Link extraction agrees with CommonMark: the spec's examples, and markdown-it-py on real stores.

The spec examples come from ``../shared/commonmark/spec.json`` (beside the
checkout, as in CI). Each example's expected HTML gives the destinations
(``href``/``src``, HTML-unescaped); those that come from raw HTML in the
input are not links memlint extracts, so they are removed. memlint stores
destinations percent-decoded, so both sides are compared decoded.
"""
from __future__ import annotations

import html
import json
import re
from collections import Counter
from urllib.parse import unquote

import pytest

from memlint.markdown import extract_links, parse
from tests.conftest import SHARED, TESTDATA

SPEC = SHARED / "commonmark" / "spec.json"
SECTIONS = {
    "Links",
    "Link reference definitions",
    "Autolinks",
    "Images",
    "Code spans",
    "Backslash escapes",
    "Fenced code blocks",
    "Indented code blocks",
}
_HTML_DEST = re.compile(r"<(?:a|img)\s[^>]*?\b(?:href|src)=\"([^\"]*)\"")
_RAW_HTML_DEST = re.compile(r"<(?:a|img)\s[^>]*?\b(?:href|src)\s*=\s*\"([^\"]*)\"", re.I)


def _examples():
    if not SPEC.is_file():
        return []
    return [e for e in json.loads(SPEC.read_text(encoding="utf-8")) if e["section"] in SECTIONS]


EXAMPLES = _examples()


def expected_destinations(example) -> Counter:
    found = Counter(unquote(html.unescape(d)) for d in _HTML_DEST.findall(example["html"]))
    found.subtract(unquote(html.unescape(d)) for d in _RAW_HTML_DEST.findall(example["markdown"]))
    return +found  # drop the raw-HTML ones (and anything that went below zero)


def memlint_destinations(markdown: str, force_reference: bool) -> Counter:
    links, _ = extract_links(markdown, 1, backtick_refs=False, wikilinks=False, force_reference=force_reference)
    return Counter(l.target for l in links if l.kind in ("link", "image", "autolink"))


@pytest.mark.skipif(not SPEC.is_file(), reason="../shared/commonmark/spec.json is not present")
def test_spec_has_the_link_sections():
    assert {e["section"] for e in EXAMPLES} == SECTIONS and len(EXAMPLES) > 200


@pytest.mark.skipif(not SPEC.is_file(), reason="../shared/commonmark/spec.json is not present")
@pytest.mark.parametrize("force_reference", [False, True], ids=["auto", "reference"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e['example']}-{e['section'].split()[0].lower()}")
def test_spec_example_destinations(example, force_reference):
    assert memlint_destinations(example["markdown"], force_reference) == expected_destinations(example), example["markdown"]


def _where(link):
    """What the graph uses: destination, position, kind (link text is kept raw by the fast path)."""
    return link.target, link.line, link.column, link.kind


def test_fast_path_agrees_with_markdown_it_on_every_corpus_file(corpora):
    files = [p for repo in corpora.values() for p in repo.rglob("*.md") if ".git" not in p.parts]
    files += list(TESTDATA.rglob("*.md"))
    fast = compared = 0
    for path in files:
        parsed = parse(path.read_text(encoding="utf-8", errors="replace"))
        for wikilinks in (True, False) if "[[" in parsed.body else (True,):
            ours, used_parser = extract_links(parsed.body, parsed.body_line, wikilinks=wikilinks)
            reference, _ = extract_links(parsed.body, parsed.body_line, wikilinks=wikilinks, force_reference=True)
            assert [_where(l) for l in ours] == [_where(l) for l in reference], (path, wikilinks)
            fast += not used_parser
            compared += 1
    assert compared > len(files) and fast > compared // 2  # the fast path is taken on most files
