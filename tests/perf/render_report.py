"""Dev-time check: render a `memlint report` page as GitHub would, and screenshot it.

Not part of the package and not run by the suite. Needs markdown-it-py, a
local mermaid build (``cd /tmp && npm install mermaid``) and Chromium::

    python3 -m memlint report --output /tmp/report.md /tmp/corp/khursheed
    python3 tests/perf/render_report.py /tmp/report.md /tmp/report.html --png /tmp/report.png

Tables use markdown-it-py's GFM table rule; ```mermaid blocks become
``<pre class="mermaid">`` and the mermaid bundle is inlined (no network).
"""
from __future__ import annotations

import argparse
import html
import subprocess
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

MERMAID_JS = Path("/tmp/node_modules/mermaid/dist/mermaid.min.js")

# A small imitation of GitHub's markdown CSS: what matters is table layout.
CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; max-width: 1280px; margin: 24px auto; padding: 0 24px; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
table { border-collapse: collapse; margin: 12px 0; display: block; width: max-content; max-width: 100%; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
tr:nth-child(2n) { background: #f6f8fa; }
th { font-weight: 600; }
code { background: #eff1f3; padding: .2em .4em; border-radius: 6px; font-size: 85%; }
pre.mermaid { background: #fff; }
"""


def to_html(markdown_text: str, mermaid_js: str) -> str:
    md = MarkdownIt("commonmark").enable("table")
    default_fence = md.renderer.rules.get("fence")

    def fence(renderer, tokens, idx, options, env):
        token = tokens[idx]
        if token.info.strip() == "mermaid":
            return f'<pre class="mermaid">{html.escape(token.content)}</pre>\n'
        return default_fence(tokens, idx, options, env)

    md.add_render_rule("fence", fence)
    body = md.render(markdown_text)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>memlint report</title>"
        f"<style>{CSS}</style></head><body>{body}"
        f"<script>{mermaid_js}</script>"
        "<script>mermaid.initialize({startOnLoad: true, securityLevel: 'strict', theme: 'default'});</script>"
        "</body></html>"
    )


def screenshot(page: Path, png: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             "--virtual-time-budget=10000", "--hide-scrollbars", f"--screenshot={png}",
             f"--window-size={width},{height}", page.resolve().as_uri()],
            check=True, capture_output=True, timeout=120,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("markdown", type=Path)
    parser.add_argument("html", type=Path)
    parser.add_argument("--png", type=Path)
    parser.add_argument("--mermaid-js", type=Path, default=MERMAID_JS)
    parser.add_argument("--size", default="1400,2000", help="window WIDTH,HEIGHT")
    parser.add_argument("--from-heading", help="render only from the first line starting with this text (e.g. '## Root')")
    args = parser.parse_args()
    text = args.markdown.read_text(encoding="utf-8")
    if args.from_heading:
        start = next((i for i, line in enumerate(text.split("\n")) if line.startswith(args.from_heading)), 0)
        text = "\n".join(text.split("\n")[start:])
    args.html.write_text(to_html(text, args.mermaid_js.read_text(encoding="utf-8")), encoding="utf-8")
    if args.png:
        width, height = (int(v) for v in args.size.split(","))
        screenshot(args.html, args.png, width, height)


if __name__ == "__main__":
    main()
