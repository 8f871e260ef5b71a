"""A link whose target does not exist.

Why: a link to nothing misleads the agent: it was told the answer is in a
file that is not there, and it either gives up or guesses. Renames leave
these behind. Markdown links resolve relative to the linking file (targets
percent-decoded, ``#anchor`` dropped); ``[[wikilinks]]`` resolve by path,
frontmatter ``name``/``title``/``aliases``, filename, then the filename with
case, ``-``, ``_`` and spaces ignored; a ``[[dir/x]]`` path also finds a file
whose path ends so (``old/dir/x.md``), never one of that name in another
folder. Links to other files of the same
repository are checked for existence too. URLs are not checked.

Where the store setting ``wikilinks`` is ``dangling-ok`` (claude-code,
moc), a ``[[name]]`` to nothing in a memory body is a note to write later,
not an error; in an index it is still a broken route, and a path
(``[[../x.md]]``, ``[[dir/x]]``) that leads nowhere is broken anywhere.
``wikilinks: strict`` reports every one; ``off`` (openclaw) reads ``[[x]]``
as text.

The finding suggests the closest existing file ("did you mean") when one is
close: the same file name in another folder, the same name in another case
or spelling, or a near miss. A name that differs only in its Unicode form
(``café`` typed as one code point, the file named with e + a combining
accent, as macOS has written names) is said to be so: the two look the same.
A ``#`` or ``?`` in a link starts an anchor or a query: where the file
named with it exists (``[c](c#.md)``, which reads ``c``, beside ``c#.md``),
the finding says so and how to write the link (``c%23.md``).
Near misses are guessed for the first 1,000 names of a run that no file
has (each is compared with up to 400 file names): past that, a store with
thousands of such links gets the other suggestions only, in seconds less.

A staged run (``--staged``, the pre-commit hook) judges the store the
commit holds: a link to a file that is on disk but not in the commit
(untracked, or left out of it) is broken there, and the finding says the
file is on disk.

Options: none.

Fires: ``- [Pricing](project_pricng.md)`` in MEMORY.md when only
``project_pricing.md`` exists (did you mean project_pricing.md?).

Fix: point the link at the file's current name, or remove the entry.
"""
import posixpath
import unicodedata

from memlint.finding import Problem
from memlint.graph import BROKEN, wiki_candidates
from memlint.markdown import decode_kept, shown_destination
from memlint.rules._common import name_some

CODE = "MEM202"
NAME = "broken-link"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph")
OPTIONS: dict = {}


def check(store, options):
    graph = store.graph
    docs = store.docs
    for edge in graph.edges:
        if edge.status != BROKEN:
            continue
        doc = docs[edge.source]
        link = edge.link
        wiki = link.kind in ("wiki", "embed")
        path_like = not wiki or "/" in link.target or link.target.endswith(".md")
        if store.unlisted and _in_unlisted(store, graph, doc, edge, wiki):
            continue  # in a folder memlint may not list (a notice says so): whether it exists is not known
        if wiki and not path_like:
            message = f"[[{link.target}]] matches no file, name or title in the store"
            if store.unlisted:  # a name may be a file's there
                message += f" (memlint cannot list {name_some([f'{f}: {why}' for f, why in store.unlisted], 2)})"
        else:
            shown = f"[[{link.target}]]" if wiki else f"`{shown_destination(link)}`"
            message = f"link target {shown} does not exist"
            # Judged as the commit holds the store: a file on disk the commit does not hold is
            # missing from it all the same, and the finding says where it is.
            on_disk = store.staged and not wiki and edge.target is not None and store.file_on_disk(edge.target)
            if on_disk:
                message = (f"link target {shown} is not in the commit: {store.shown(edge.target)} is on disk, but the "
                           "commit does not hold it (untracked, or left out of this commit)")
        if not wiki and ("#" in link.target or "?" in link.target) and graph.named_whole(doc, link.target):
            yield Problem(doc.path, link.line, link.column, _delimiter_in_name(link))
            continue
        # A near-miss name is offered only where the target was meant to be
        # in the store; elsewhere only the same file name found in the store.
        if wiki:
            inside = graph.wiki_in_store(doc, link.target)
        else:
            inside = edge.target is not None and graph.repo_to_store(edge.target) is not None
        suggestion = graph.suggest(doc, link.target, wiki=wiki, fuzzy=inside)
        if suggestion:
            if wiki:
                found, wanted = suggestion, link.target
            else:  # both repo-relative
                found = posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), suggestion))
                wanted = edge.target or link.target
            if _look_alike(found, wanted):
                message += (f"; {suggestion} exists, but its name is spelt with other Unicode code points"
                            " (NFC vs NFD): the names look the same and differ on Linux and GitHub;"
                            " retype the link or rename the file")
            else:
                message += f"; did you mean [[{suggestion}]]?" if wiki else f"; did you mean {suggestion}?"
        yield Problem(doc.path, link.line, link.column, message)


def _delimiter_in_name(link) -> str:
    """MEM202's message for ``c#.md`` when the file ``c#.md`` exists: the
    ``#`` (or ``?``) starts an anchor (a query), and how to write the name."""
    target = link.target
    read = target.split("#", 1)[0].split("?", 1)[0]
    delimiter = target[len(read)]
    encoded = target.replace("#", "%23").replace("?", "%3F").replace(" ", "%20")
    return (f"link target `{shown_destination(link)}` does not exist: a `{delimiter}` in a link starts "
            f"{'an anchor' if delimiter == '#' else 'a query'}, so the file read is `{read}`; to link the file "
            f"`{decode_kept(target)}`, write `{encoded}`")


def _look_alike(found: str, wanted: str) -> bool:
    """The same path in two Unicode normalizations (café as one code point,
    or as e + a combining accent): a "did you mean" would print the same
    text twice."""
    return found != wanted and unicodedata.normalize("NFC", found) == unicodedata.normalize("NFC", wanted)


def _in_unlisted(store, graph, doc, edge, wiki: bool) -> bool:
    """Whether a broken link names a path in a folder the store could not be
    listed in (``Store.in_unlisted``)."""
    if edge.target is not None:
        return store.in_unlisted(graph.repo_to_store(edge.target) or "")
    name = edge.link.target.strip()
    if not wiki or not ("/" in name or name.endswith(".md")):
        return False
    folder = posixpath.dirname(doc.rel)
    return any(store.in_unlisted(posixpath.normpath(posixpath.join(base, candidate)))
               for candidate in wiki_candidates(name) for base in (folder, ""))
