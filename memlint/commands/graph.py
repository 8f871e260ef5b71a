"""``memlint graph``: a picture of the store, root -> topics -> memories
(drawn by ``memlint.graphview``)."""
from __future__ import annotations

from pathlib import Path

import click

from memlint.cli import NamedPath, build_stores, common_store_options, output_option, require_stores, write_output
from memlint.graphview import DEFAULT_MAX_PER_TOPIC, build_view, graph_json, render_dot, render_mermaid


@click.command("graph")
@click.argument("paths", nargs=-1, type=NamedPath(path_type=Path))
@common_store_options
@click.option("--format", "fmt", type=click.Choice(["mermaid", "dot", "json"]), default="mermaid", show_default=True, help="mermaid renders on GitHub; dot is Graphviz; json lists every node and link.")
@click.option("--max-per-topic", type=click.IntRange(min=1), default=DEFAULT_MAX_PER_TOPIC, show_default=True, help="Memories drawn under one index before they collapse to counts.")
@output_option("Write to a file instead of stdout (- for stdout).")
def graph_cmd(paths, preset, config_file, fmt, max_per_topic, output):
    """Draw the store: root -> topics -> memories, orphans and broken targets marked."""
    stores = build_stores(paths, preset, config_file)
    require_stores(stores, paths, "graph")
    if fmt == "json":
        from memlint.reporters import json_text

        text = json_text({"stores": [graph_json(s) for s in stores]}) + "\n"
    else:
        views = [build_view(s, max_per_topic) for s in stores]
        text = render_mermaid(views) if fmt == "mermaid" else render_dot(views)
    if output is not None:
        if fmt == "mermaid" and output.suffix.lower() in (".md", ".markdown"):
            text = f"```mermaid\n{text}```\n"  # a markdown file shows the picture only inside a mermaid fence
        write_output(output, text, stores)
    else:
        click.echo(text, nl=False)
