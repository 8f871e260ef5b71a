"""A link that leads out of the repository.

Why: ``../../etc/passwd``, ``/Users/me/notes.md``, ``~/.ssh/config``,
``file:///...`` and ``C:\\...`` point at files on one machine: for anyone who
clones the store, and for an agent running elsewhere, the link is broken;
and a memory that sends an agent to read files outside its project is how
injected instructions reach secrets. memlint judges these links from their
text alone and never opens or even stats the target (a link to a symbolic
link inside the repository that points out is reported the same way; a
``.md`` one of the store is MEM006 on the file itself). Links to other
files of the same repository are normal links: checked for existence
(MEM202), not followed for reachability.

Options: none.

Fires: ``[creds](../../.aws/credentials)`` in a store at the repository root.

Fix: copy what matters into the store, or link to a file inside the
repository; keep machine paths as plain text in code spans if the agent
needs them.
"""
from memlint.finding import Problem
from memlint.graph import OUTSIDE
from memlint.markdown import shown_destination

CODE = "MEM203"
NAME = "link-outside-repo"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph", "security")
OPTIONS: dict = {}


def check(store, options):
    docs = store.docs
    for edge in store.graph.edges:
        if edge.status != OUTSIDE:
            continue
        link = edge.link
        shown = f"[[{link.target}]]" if link.kind in ("wiki", "embed") else f"`{shown_destination(link)}`"
        yield Problem(
            docs[edge.source].path,
            link.line,
            link.column,
            f"link {shown} points outside the repository ({edge.note}); memlint does not follow it",
        )
