"""The regex fast path finds exactly the links markdown-it-py (CommonMark) finds.

The fast path hands a file to markdown-it whenever it holds a construct it
cannot judge; these tests build documents out of the constructs where that
judgement is subtle (indented lines, raw HTML, escapes, code spans and fences
inside containers) and compare the two paths on every one.
"""
from __future__ import annotations

import random

import pytest

from memlint.markdown import extract_links


def _where(links):
    return [(l.target, l.line, l.column, l.kind) for l in links]


def assert_agrees(text: str) -> bool:
    """Both paths give the same links; returns whether the fast path was taken."""
    for wikilinks in (True, False):
        fast, used_parser = extract_links(text, 1, wikilinks=wikilinks)
        reference, _ = extract_links(text, 1, wikilinks=wikilinks, force_reference=True)
        assert _where(fast) == _where(reference), (text, wikilinks)
    return not extract_links(text, 1)[1]


FAST = [
    # indented lines that continue a paragraph or list item, or hold no link syntax
    "- item\n    - [sub](a.md)\n",
    "1. step\n    continued [here](b.md)\n",
    "text\n    [continued](c.md)\n",
    "# Title\n\n    plain indented text\n\n[x](d.md)\n",
    "- a\n\n    more of a, no links\n",
    "- step\n  ```\n  [code](x.md)\n  ```\n[after](y.md)\n",  # a fence in a list item, closed in it
    # inline HTML that holds no link syntax
    "user: <composio>\nsee [x](e.md) </composio> done\n",
    "a <span class=x>b</span> [c](f.md)\n",
    "</composio>\nplain text\n\n[x](g.md)\n",
    # escapes of characters that do not build links, away from links
    "a\\_b and c\\*d\n\n[x](h.md)\n",
    # a '<' that cannot open a tag or autolink, before a backtick
    "heredoc `<<EOF` and [x](i.md)\n",
]

PARSER = [
    "# Title\n    [code](a.md)\n",  # indented code after a heading
    "\n    [code](a.md)\n",
    "para\n\n    [code](a.md)\n",
    "- a\n\n      [code](a.md)\n",  # indented code inside a list item
    ">     [code](a.md)\n",  # inside a block quote
    "-     [code](a.md)\n",  # a list item opening with indented code
    "<div>\n[raw](a.md)\n</div>\n",  # an HTML block
    "<pre>\n\n[raw](a.md)\n</pre>\n",
    "a <b title='[x](y)'>c</b>\n",
    "[a](b\\_c.md)\n",  # an escape inside a destination
    "<!-- note --> [x](a.md)\n",  # the line closing an HTML block comment is HTML
    "- ~~~\n  [in fence](a.md)\n  ~~~\n",  # a fence inside a list item
    "- `a [x](y.md)\n- b`\n",  # a code span cannot cross list items
    "- [a\n- b](c.md)\n",  # nor a link
    "a `b\n\nc [x](y.md) d`\n",
    "</div>\n~~~\n\n1. [link](a.md)\n",  # in an HTML block, ~~~ opens no fence
    "<!-- open\n~~~\n-->\n[x](a.md)\n",  # nor in a comment
    "* <!-- open\n<div>\n-->\n[x](a.md)\n",  # a comment in a list item ends with the item
    "  <!-- c -->\n    [x](a.md)\n",  # after an HTML block, indented code
    "<!-- a\nb -->\n    [x](a.md)\n",
    "[a](<s.md>) <me@x.org>\n",  # the autolink's column, after a <destination>
    "![i](p.png) ![i](p.png)\n",  # the same image twice: two columns
    "  ![[embed]]\n\t[l](m.md)\n",  # a blanked wikilink must not look like a thematic break
    "- [\n  ```\n[](f.md)\n",  # a fence in a list item, left open, ends with the item
    "- a\n  ```\n  code [x](y.md)\n```\n[](f.md)\n",  # closed at the margin: that line opens a new fence
]


@pytest.mark.parametrize("text", FAST)
def test_fast_path_taken_and_agrees(text):
    assert assert_agrees(text)


@pytest.mark.parametrize("text", PARSER)
def test_subtle_constructs_agree(text):
    assert_agrees(text)


PIECES = [
    "plain words here", "[link](a.md)", "![img](i.png)", "[[wiki]]", "![[embed]]", "<https://x.org/p>",
    "<me@x.org>", "`code [x](c.md)`", "`tick", "``double``", "<span>", "</span>", "<b title=\"[q](r)\">",
    "<!-- c -->", "<!-- open", "-->", "a\\_b", "\\[not](n.md)", "&amp;", "[t](<s p.md>)", "[t](u.md \"title\")",
    "<composio>", "[a [b]](c.md)", "<x", "<<EOF", "[l](m.md)[n](o.md)",
]
PREFIXES = ["", "", "", "    ", "  ", "\t", "- ", "  - ", "    - ", "1. ", "> ", ">     ", "# ", "-     ", "* "]
SPECIAL_LINES = ["", "", "```", "~~~", "```sh", "---", "***", "===", "-", "1.", "<div>", "</div>", "<pre>", "</pre>"]


def _document(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 9)):
        if rng.random() < 0.3:
            lines.append(rng.choice(SPECIAL_LINES))
        else:
            words = [rng.choice(PIECES) for _ in range(rng.randint(1, 3))]
            lines.append(rng.choice(PREFIXES) + " ".join(words))
    return "\n".join(lines) + rng.choice(["\n", ""])


def test_fast_path_agrees_on_generated_documents():
    rng = random.Random(20261130)
    fast = 0
    for _ in range(3000):
        fast += assert_agrees(_document(rng))
    assert fast > 300  # the fast path was taken often enough to mean something


# Past the sizes the reference parser is given (a block of more than
# MAX_PARSER_BLOCK_CHARS: markdown-it-py's inline parser is quadratic on some
# hostile paragraphs), the regex pass reads the links alone: it must still
# leave out the lines CommonMark reads as HTML or as indented code.
LONG = "x" * 10_001
PAST_THE_PARSER = [
    "<!--\n" + "[a](b.md)\n" * 1200,  # an unclosed comment: HTML to the end
    "<!--\n" + LONG + "\n\n[a](b.md)\n",
    "<div>\n" + "[a](b.md)\n" * 1200 + "\n[after](c.md) " + LONG + "\n",  # a <div> block ends at a blank line
    "- item\n  <div>\n  [in](d.md)\n\n[p](q.md) " + LONG + "\n",  # HTML in a list item
    "    [code](x.md)\n\n[p](q.md) " + LONG + "\n",  # indented code
    "<!-- closed -->\n[a](b.md) " + LONG + "\n<span>[inline](e.md)</span>\n",  # inline HTML: its links count
    # a footnote is no reference definition: the lines after it are not code, nor HTML
    "Text.[^1]\n\n[^1]: https://example.com/src\n    see [the doc](doc.md) too\n\n" + LONG + "\n",
    "Text.[^1]\n\n[^1]: https://example.com/src\n<br>\nSee [p](p.md).\n\n" + LONG + "\n",
]


@pytest.mark.parametrize("text", PAST_THE_PARSER, ids=["open-comment", "open-comment-then-link", "div", "div-in-item",
                                                      "indented-code", "inline-html", "footnote-then-indented",
                                                      "footnote-then-html"])
def test_past_the_parsers_limits_html_and_code_blocks_hold_no_links(text, monkeypatch):
    from memlint import markdown

    for wikilinks in (True, False):
        fast, used_parser = extract_links(text, 1, wikilinks=wikilinks)
        assert not used_parser
        with monkeypatch.context() as patch:  # these documents are no trouble for it: the reference, at any size
            patch.setattr(markdown, "MAX_PARSER_BLOCK_CHARS", 10**9)
            reference, used_parser = extract_links(text, 1, wikilinks=wikilinks, force_reference=True)
        assert used_parser
        assert _where(fast) == _where(reference), (text[:80], wikilinks)
