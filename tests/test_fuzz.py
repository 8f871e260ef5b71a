"""Fuzz the frontmatter splitter, the link extractor and the suppression
parser with arbitrary text: no exception, bounded time, and every line number
inside the file."""
from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memlint import markdown, suppress

# Characters that mean something to YAML, CommonMark, wikilinks or memlint,
# mixed with anything at all.
SPECIAL = list("[]()<>!`\\*_~#|&;:@^'\"{}?=,.-/ \t\n\r") + ["\ufeff", "\x00", "é", "メ", "\u2028", "\x85"]
TOKENS = [
    "---\n", "...\n", "```\n", "~~~\n", "    ", "- ", "1. ", "> ", "[[", "]]", "](", "<!--", "-->",
    "[x]: ", "name: ", "&a ", "*a ", "!!python/object ", "http://", "file:///", "../", "`a.md`",
    "<!-- memlint-disable-next-line -->", "<!-- memlint-disable MEM1 -->", "<!-- memlint-enable -->",
]
text_strategy = st.lists(
    st.one_of(st.sampled_from(SPECIAL), st.sampled_from(TOKENS), st.text(max_size=8)), max_size=120
).map("".join)
frontmatter_strategy = st.builds(
    lambda pre, fm, close, body: pre + "---\n" + fm + close + body,
    st.sampled_from(["", "", "\ufeff", "<!-- x -->\n", "# T\n\n"]),
    text_strategy,
    st.sampled_from(["\n---\n", "---\n", "\n...\n", "\r\n---\r\n", ""]),
    text_strategy,
)
# 300 examples a test keeps the default suite fast; MEMLINT_FUZZ_EXAMPLES=20000 digs deeper.
FUZZ = settings(
    max_examples=int(os.environ.get("MEMLINT_FUZZ_EXAMPLES", "300")),
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow],
)


def _line_count(text: str) -> int:
    """Lines a reader sees (a final newline does not start a new line)."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _check_parsed(text: str) -> None:
    start = time.monotonic()
    parsed = markdown.parse(text)
    assert time.monotonic() - start < 2
    stripped = text[1:] if text.startswith("\ufeff") else text
    lines = stripped.split("\n")
    last = max(1, _line_count(stripped))
    for link in parsed.links:
        assert 1 <= link.line <= last, (link, last)
        assert 1 <= link.column <= len(lines[link.line - 1]) + 1, link
    if parsed.frontmatter_lines:
        open_line, close_line = parsed.frontmatter_lines
        assert 1 <= open_line <= close_line <= last
        for key, line in parsed.key_lines.items():
            assert open_line < line < close_line, (key, line, parsed.frontmatter_lines)
    if parsed.frontmatter_error:
        assert 1 <= parsed.frontmatter_error.line <= last
        assert parsed.frontmatter is None
    assert 1 <= parsed.body_line <= last + 1


@FUZZ
@given(text_strategy)
@example("---\nname: a\n---\n[x](y.md)")
@example("`` ` ``[a](b)` ``")
@example("[a]: <b>\n[a]")
@example("\r[x]: ---\n[x]: ")  # markdown-it counted the lone CR as a line
def test_parse_any_text(text):
    _check_parsed(text)


@FUZZ
@given(frontmatter_strategy)
@example("---\na: &a [*a]\n---\n")
@example("---\n\u2028[\n---\n")  # YAML counted U+2028 as a line: the error fell past the file
@example("---\r\nname: x\r\n---\r\n[a](b)\r\n")
def test_parse_any_frontmatter(text):
    _check_parsed(text)


@FUZZ
@given(st.text(max_size=300))
def test_parse_any_unicode(text):
    _check_parsed(text)


@FUZZ
@given(text_strategy, st.integers(min_value=1, max_value=10_000))
def test_extract_links_lines_stay_in_the_body(body, first_line):
    links, _ = markdown.extract_links(body, first_line)
    last = first_line + max(0, _line_count(body) - 1)
    for link in links:
        assert first_line <= link.line <= last, (link, first_line, last)


@FUZZ
@given(text_strategy)
def test_suppressions_of_any_text(text):
    sup = suppress.parse(text)
    last = max(1, _line_count(text)) + 1  # disable-next-line on the last line points past it
    assert all(1 <= line <= last for line in sup.lines)
    assert all(1 <= start <= last for start, _, _ in sup.ranges)
