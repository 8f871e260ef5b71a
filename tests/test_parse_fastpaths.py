"""The fast paths of memlint.markdown give exactly what the slow ones give.

Frontmatter: ``_simple_yaml`` (flat ``key: value`` lines, one-line lists,
block lists, one nested mapping) against the YAML loader, typed values and
all, on generated frontmatter and on every frontmatter of the real corpora.
Links: the find-based fenced-code and code-span scans and the newline-count
line index against the plain line-by-line versions they replaced.
"""
from __future__ import annotations

import itertools
import random
import re
import string

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memlint import frontmatter_yaml, markdown
from tests.conftest import CORPORA

# Scalars that YAML types or rejects in every way a frontmatter line can hold.
ATOMS = [
    "a", "x y", "it's", "a  b", "é", "한국어 — 텍스트", "a [x](y)", "a {b}", "a, b", "a#c", "a:b", "http://x/y",
    "yes", "No", "ON", "off", "true", "False", "tRUE", "y", "n", "null", "Null", "NULL", "~",
    "0", "-0", "12", "+3", "012", "0x1F", "1_000", "1.5", ".inf", "-.inf", ".NaN", "1e3", "1:30",
    "2024-05-23", "2024-05-23T10:00:00Z", "=", "<<", "a: b", "a #c", "#c", "-", "- x", "-x", "?x", "? x",
    ":x", "a:", "[a]", "[a, b]", "[ a , b ]", "[a,]", "[,]", "[a,,b]", "[]", "[ ]", "['a', \"b\"]", "[a: b]",
    "[a:b]", "[[a]]", "{a: b}", "{}", '"q"', '"a:b # c"', '"a\\"b"', '"a\\nb"', "'s''q'", "'s'x", "'s' #c",
    '""', "''", "'", '"', "&x a", "*x", "!!str 1", "!x a", "|", ">", "%x", "@x", "`x",
    "a\u00a0b", "\u00a0", "a\u3000", "a\tb", "a\x85b", "a\u2028b", "a\ufeffb", "a\rb",
    '["a,b", c]', "[a b, c  d]", "[yes, 1, null, ~, 1.5, 2024-01-02]", "[-a]", "[a-b]", "[a'b]", '[a"b]',
    "[#a]", "[a#b]", "[a #b]", "[ a,b ,c ]",
]
KEYS = ["name", "description", "tags", "a_b", "a-b", "_x", "Key2", "yes", "on", "null", "y", "x.y", "1a", "a b", "-a"]


def _typed(value):
    """``value`` with every type spelled out: 1, 1.0 and True must differ."""
    if isinstance(value, dict):
        return {repr(_typed(k)): _typed(v) for k, v in value.items()}, list(map(repr, value))
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return type(value).__name__, repr(value)


def _assert_same_as_loader(fm_text: str) -> bool:
    """True when the fast path took ``fm_text``; then the loader must agree."""
    fast = frontmatter_yaml._simple_yaml(fm_text)
    if fast is frontmatter_yaml._NOT_SIMPLE:
        return False
    try:
        loaded = yaml.load(fm_text, Loader=frontmatter_yaml._Loader)
    except yaml.YAMLError as exc:  # pragma: no cover - the failure message
        pytest.fail(f"fast path read {fm_text!r} as {fast!r}; the loader says {exc}")
    assert _typed(fast) == _typed(loaded), fm_text
    return True


def _typed_by_the_loader_table(text: str):
    """A plain scalar typed as the loader's resolver table types it (what the
    fast path did with that table itself before it stopped importing yaml)."""
    loader = frontmatter_yaml._Loader
    for tag, pattern in loader.yaml_implicit_resolvers.get(text[0], ()):
        if pattern.match(text):
            if tag == "tag:yaml.org,2002:bool":
                return loader.bool_values[text.lower()]
            if tag == "tag:yaml.org,2002:null":
                return None
            if tag == "tag:yaml.org,2002:int" and re.fullmatch(r"-?(?:0|[1-9][0-9]*)", text):
                return int(text)
            return frontmatter_yaml._NOT_SIMPLE
    return text


def test_plain_scalars_are_typed_as_the_loader_table_types_them():
    """The fast path types plain scalars without importing yaml: bools, nulls
    and decimal ints as the loader does, dates and words as strings, and
    leaves any other number (or merge/value key) to the loader."""
    table = frontmatter_yaml._Loader.yaml_implicit_resolvers
    assert {first for first, resolvers in table.items() if first and resolvers} <= frontmatter_yaml._RESOLVED_FIRST
    rng = random.Random(3)
    alphabet = "0123456789+-._:eExXoObBabcdfinINFNaAyYsStTrRuUlLzZ~<=/ "
    texts = {a for a in ATOMS if a} | {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(30_000)}
    for word in ("yes", "no", "true", "false", "on", "off", "null", "y", "n", "nan", "inf", "ok"):
        texts |= {word, word.upper(), word.capitalize(), word.swapcase(), "." + word, "-." + word, "+." + word}
    undecided = 0
    for text in sorted(texts):
        if text[0] not in frontmatter_yaml._RESOLVED_FIRST:
            assert _typed_by_the_loader_table(text) == text, text  # a string for both
            continue
        ours = frontmatter_yaml._resolve_plain(text)
        if ours is frontmatter_yaml._NOT_SIMPLE:
            undecided += 1
            continue
        assert _typed(ours) == _typed(_typed_by_the_loader_table(text)), text
    assert undecided < len(texts) // 3  # most are decided here, not sent to the loader
    for date in ("2024-05-23", "2024-05-23T10:00:00Z", "2024-05-23 10:00", "1999-12-31"):
        assert frontmatter_yaml._resolve_plain(date) == date


def test_every_atom_in_every_position():
    taken = 0
    for atom, key in itertools.product(ATOMS, KEYS):
        for text in (f"{key}: {atom}", f"{key}:  {atom}  ", f"{key}:\n  - {atom}\n", f"{key}:\n- {atom}",
                     f"m:\n  {key}: {atom}", f"{key}: [{atom}]", f"{key}: [x, {atom}]", f"{key}: {atom}\nz: 1"):
            taken += _assert_same_as_loader(text)
    assert taken > 1000  # the fast path is exercised, not bypassed


def _frontmatter(rng: random.Random, clean: bool) -> str:
    atoms = [a for a in ATOMS if frontmatter_yaml._simple_scalar(a) is not frontmatter_yaml._NOT_SIMPLE] if clean else ATOMS
    keys = [f"k{i}" for i in range(30)] + KEYS[:6] if clean else KEYS

    def pick(options, usual):  # clean frontmatter takes the usual choice most of the time
        return usual if clean and rng.random() < 0.9 else rng.choice(options)

    lines = []
    for _ in range(rng.randint(0, 7)):
        key, shape = rng.choice(keys), rng.random()
        if shape < 0.55:
            lines.append(key + pick([": ", ":  ", ":"], ": ") + rng.choice(atoms) + pick(["", " ", "  # c"], ""))
        elif shape < 0.95:
            lines.append(key + pick([":", ": "], ":"))
            indent = rng.choice(["", " ", "  ", "    "])
            nested = shape >= 0.75
            for _ in range(rng.randint(0, 4)):
                lead = pick([indent, indent + "  ", " "], indent)
                if nested:
                    lines.append(lead + rng.choice(keys) + pick([": ", ":"], ": ") + rng.choice(atoms + [""]))
                else:
                    lines.append(lead + pick(["- ", "-  ", "-"], "- ") + rng.choice(atoms))
                if rng.random() < (0.02 if clean else 0.1):
                    lines.append(rng.choice(["", "  ", "# c", "  # c", "  - x"]))
        else:
            lines.append(rng.choice(["", "# comment", "  ", "---", "...", "%YAML 1.1", "  indented: x", "- top"]))
    return "\n".join(lines) + rng.choice(["", "\n"])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32))
def test_generated_frontmatter_reads_as_the_loader_reads_it(seed):
    rng = random.Random(seed)
    for i in range(40):
        _assert_same_as_loader(_frontmatter(rng, clean=i % 2 == 0))


def test_typical_memory_frontmatter_takes_the_fast_path():
    text = "name: a-b\ndescription: Use `x` (see [y](z.md)), it's fine\ncreated: 2024-05-23\ntags: [facts, howto]\n" \
           "metadata:\n  type: feedback\n  originSessionId: d64a1437\nrelated:\n  - a.md\n  - 'b c'\npinned: true\n"
    assert _assert_same_as_loader(text)


def test_corpus_frontmatter_reads_as_the_loader_reads_it(corpora):
    taken = 0
    for name in CORPORA:
        for path in sorted(corpora[name].rglob("*.md")):
            if ".git" in path.parts:
                continue
            lines = path.read_bytes().decode("utf-8", "replace").split("\n")
            fences = markdown._find_frontmatter(lines)
            if fences and fences[1] > 0:
                taken += _assert_same_as_loader("\n".join(l.rstrip("\r") for l in lines[fences[0] + 1:fences[1]]))
    assert taken > 100


# ------------------------------------------------------------------ links


def _blank_fenced_code_by_lines(text: str) -> str:
    """The line-by-line version blank_fenced_code replaced."""
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines):
        if fence is None:
            m = markdown._FENCE_OPEN.match(line)
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                fence = m.group(2)
                lines[i] = " " * len(line)
        else:
            stripped = line.strip()
            if len(line) - len(line.lstrip(" ")) < 4 and stripped.startswith(fence[0] * len(fence)) \
                    and set(stripped) == {fence[0]}:
                fence = None
            lines[i] = " " * len(line)
    return "\n".join(lines)


def _code_spans_left_to_right(text: str) -> list[tuple[int, int, int, int]]:
    """CommonMark's scan, character by character: a backslash escapes the
    next punctuation character; a backtick run opens a span closed by the
    next run of its length before a blank line; else it is literal."""
    def run_end(i):
        while i < len(text) and text[i] == "`":
            i += 1
        return i

    spans, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in string.punctuation:
            i += 2
        elif text[i] == "`":
            end = run_end(i)
            j = end
            while j < len(text):
                if text[j] == "`":
                    close = run_end(j)
                    if close - j == end - i:
                        break
                    j = close
                elif text.startswith("\n", j) and re.match(r"\n[ \t]*\n", text[j:]):
                    j = len(text)  # a blank line: the paragraph ends unclosed
                else:
                    j += 1
            if j < len(text):
                spans.append((i, end, j, j + end - i))
                i = j + end - i
            else:
                i = end
        else:
            i += 1
    return spans


FENCE_PIECES = ["```", "~~~", "````", "``` x", "```py`", "~~~ `", "    ```", "   ```", "\t```", " ``` ", "```\r",
                "a", "[x](y)", "", " ", "- ```", "> ```", "``", "~~~~", "```~", "\u3000```", "a```", "  ~~~```",
                "`a` `b`", "``a`` `", "    [a]", "> \t<x>", "1.     `c`", "\\`", "\\\\`", "a\\``", " \t"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FENCE_PIECES), max_size=10), st.sampled_from(["", "\n"]))
def test_fence_and_code_span_scans_match_the_plain_ones(pieces, end):
    text = "\n".join(pieces) + end
    assert markdown.blank_fenced_code(text) == _blank_fenced_code_by_lines(text)
    assert markdown.code_spans(text) == _code_spans_left_to_right(text)
    index, table = markdown._LineIndex(text, 3), markdown._LineIndex(text, 3)
    table.counted = 99  # straight to the table of line starts
    for offset in range(0, len(text) + 1, 3):
        assert index.at(offset) == table.at(offset)


@pytest.mark.parametrize("length", [1024, 1025, 3000])
def test_keys_past_yamls_1024_character_limit_are_left_to_the_loader(length):
    # YAML allows an implicit key of at most 1024 characters; the loader rejects a longer one.
    for text in (f"{'k' * length}: v\n", f"m:\n  {'k' * length}: v\n"):
        data, error = frontmatter_yaml.load_yaml(text, 2)
        assert (error is None) == (length <= 1024), text[:20]
        _assert_same_as_loader(text)


def _markdown_it_code_spans(text: str) -> list[str]:
    from markdown_it import MarkdownIt

    found = []
    for token in MarkdownIt("commonmark").parse(text):
        found += [child.content for child in token.children or () if child.type == "code_inline"]
    return found


def _as_commonmark_shows(content: str) -> str:
    content = content.replace("\n", " ")
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "b c", "`", "``", "\\", "\\`", " ", "\n", "\n\n", "\n \n"]), max_size=16))
def test_code_spans_are_the_ones_markdown_it_finds(pieces):
    # Paragraphs only (each line opens with a letter, so none opens a block
    # or a fence): there a blank line is the one boundary a span cannot
    # cross, and a backslash may escape a backtick.
    text = "\n".join("x" + line if line.strip() else line for line in "".join(pieces).split("\n"))
    ours = [_as_commonmark_shows(text[start:end]) for _, start, end, _ in markdown.code_spans(text)]
    assert ours == _markdown_it_code_spans(text)
