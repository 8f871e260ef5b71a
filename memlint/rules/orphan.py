"""A memory no index reaches: the agent never reads it.

Why: an agent reads the root index at session start and walks index links
(root -> topic -> memory). A file that no index links to, or that sits
deeper than the store's ``index-depth`` (default 3), is never loaded: what
it says is lost. Links from one memory to another do not route the agent
(unless the store setting ``body-links-reach`` is true). Daily logs, files
the store setting ``exempt`` names (``NOW.md``), the ``exempt`` option's
archives and templates, retired memories, and a memory another supersedes
(``supersedes:``; MEM503 says to retire it, not to file it) are never
orphans. A topic index nothing reaches is
reported once, on the topic: the memories it lists are lost with it; when
the topics under it run so deep that linking it from the root would still
leave some past ``index-depth``, the finding names those to link too. A
retired topic (``status: archived``...) or an exempt archive index covers
nothing so: the live memories only it lists are reported each.

The finding names the index the file most likely belongs in when one is
obvious: the index where most files of its folder, or of its filename prefix
(``project_``, ``feedback-``), are filed, and the entry it would sit beside.
Only an index the agent loads is named so: not one past ``index-depth``,
nor one reached only through what the root's load cap drops (MEM101: its
lines past the cap, or a link above the cap whose reference definition is
below it); a memory whose ``topics:`` names such an index is told to file it
there and to link that index where the agent reads it. Nor is a retired
topic (``status: archived``...: MEM205) ever named: it routes nobody.
When that index is the root and one more line would take it over its load
cap (an entry there would push a line that loads now out of what the harness
loads) or its line budget (MEM101's options), it says the root is full instead;
when the root is over either already, it says that. It says the same of a
topic at its entry or line cap (topic-oversized's options, MEM103). A budget
or cap that its rule is told to leave alone (off, its `ignore:`, or a
directive hiding the finding an added entry would bring) does not make the
root or topic full; the load cap always does: the harness cuts there.

Severity: error; warning under the ``openclaw`` preset, whose agents also
find memory files by search.

Options: ``exempt`` (store-relative globs, matched ignoring case; default:
archive folders, templates and ``daily-YYYY-MM-DD*.md`` logs). Setting it
replaces the default list: repeat the globs of it you want to keep.

Fires: ``project_x.md`` exists, but no line of ``MEMORY.md`` (or of a topic
``MEMORY.md`` links to) links to it.

Fix: add a one-line entry for it to the index the message names, or move
it to an archive folder if it is no longer needed. A file already listed in
an index that sits too far from the root: link that index from one nearer
the root (or raise ``index-depth``).
"""
from collections import deque

from memlint import suppress
from memlint.config import glob_match, glob_matcher
from memlint.finding import Problem
from memlint.graph import INDEX_ROLES, OK, IndexFinder
from memlint.rules._common import name_some, plural

CODE = "MEM201"
NAME = "orphan"
SEVERITY = "error"
SCOPE = "store"
TAGS = ("links", "graph")
DEFAULT_EXEMPT = [
    "**/archive/**",
    "**/archives/**",
    "**/archived/**",
    "**/daily-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md",  # a daily log by another name
    "**/*template*.md",
]
OPTIONS = {"exempt": ((list,), DEFAULT_EXEMPT)}
GLOB_OPTIONS = ("exempt",)  # validated as globs (memlint.config)


def check(store, options):
    root = store.root
    if root is None or root.parsed is None:
        return
    graph = store.graph
    docs = store.docs
    exempt = glob_matcher([pattern.casefold() for pattern in options["exempt"]])
    unreached_indexes = {rel for rel, doc in docs.items() if doc.role == "index" and rel not in graph.depth}
    # A memory another supersedes is to be retired, not filed (MEM503 says so):
    # unrouted, it is where it should be, as a retired one is.
    superseded = store.lifecycle.newer
    candidates = {
        rel
        for rel, doc in docs.items()
        if doc.role in ("memory", "index") and rel not in graph.depth and not exempt(rel.casefold())
        and rel not in superseded
    }
    # A file listed by an unreached index is that index's loss: report the
    # index once (or the first of a cycle of them), not every file under it.
    # Not so for an index whose own finding no one will see (an archive the
    # `exempt` option names, a retired topic): the live files it lists are
    # reported each.
    from memlint.lifecycle import is_retired

    covering = {rel for rel in unreached_indexes & candidates if not is_retired(docs[rel], store.settings)}
    covered: dict[str, int] = {}  # reported index -> files lost with it

    def flood(start: str) -> set[str]:
        seen = {start}
        queue = deque([start])
        while queue:
            rel = queue.popleft()
            if rel not in covering:
                continue
            for edge in graph.out.get(rel, ()):
                if edge.status == OK and edge.target not in seen and edge.target not in graph.depth:
                    seen.add(edge.target)
                    queue.append(edge.target)
        return seen

    listed_by_unreached = {
        rel
        for rel in candidates
        if any(e.source in covering and e.source != rel for e in graph.inbound.get(rel, ()))
    }
    reported = sorted(candidates - listed_by_unreached)
    visited: set[str] = set()
    floods: dict[str, set[str]] = {}  # reported index -> the files lost with it
    for rel in reported:
        lost = floods[rel] = flood(rel)
        visited |= lost
        covered[rel] = len(lost & candidates) - 1
    # Indexes that only list each other: report the first of each cycle.
    for rel in sorted(candidates, key=lambda r: (docs[r].role != "index", r)):
        if rel not in visited:
            lost = floods[rel] = flood(rel)
            visited |= lost
            covered[rel] = len(lost & candidates) - 1
            reported.append(rel)

    finder = None
    root_full: dict = {}  # _root_full's answers, by the line an entry would sit beside; _topic_full's, by topic
    for rel in sorted(reported):
        doc = docs[rel]
        why = _why(graph, rel)
        if doc.role == "index":
            lost = covered.get(rel, 0)
            tail = f"; {plural(lost, 'file')} reached only through it {'is' if lost == 1 else 'are'} lost with it" if lost else ""
            also = _stranded_indexes(graph, rel, floods.get(rel, set()), candidates, covering)
            fix = f"link it from {root.rel}"
            if also:  # linked from the root, it would still leave these too far down to route to what they list
                fix += (f", and {name_some(also, 2)} too (through it, what {'that lists' if len(also) == 1 else 'they list'} "
                        f"would sit past index-depth {store.settings['index-depth']})")
            message = f"topic index not reachable from {root.rel} ({why}){tail}; {fix}"
        else:
            if finder is None:
                finder = IndexFinder(graph)
            deep = _deep_index(graph, rel)
            if deep is not None:  # it is filed: the index it is filed in is too far down
                hint = f"; link {deep} from an index nearer the root, or raise index-depth"
            else:
                hint = _hint(finder, rel, root_full)
            message = f"not reachable from {root.rel} ({why}){hint}"
        yield Problem(doc.path, 1, 1, message)


def _stranded_indexes(graph, start: str, lost: set[str], candidates: set[str], covering: set[str]) -> list[str]:
    """The indexes lost with ``start`` that, were ``start`` linked from the
    root, would list files still past ``index-depth``: each needs a link
    from nearer the root too."""
    max_depth = graph.store.settings["index-depth"]
    depth = {start: 1}
    queue = deque([start])
    while queue:
        rel = queue.popleft()
        if rel not in covering or depth[rel] >= max_depth:
            continue
        for edge in graph.out.get(rel, ()):
            if edge.status == OK and edge.target not in graph.depth and edge.target not in depth:
                depth[edge.target] = depth[rel] + 1
                queue.append(edge.target)
    stranded = (lost & candidates) - depth.keys()
    # Those at the edge of what it would reach: linked from the root, each brings up what lies under it
    return sorted(rel for rel in lost & covering & depth.keys() if rel != start
                  and any(edge.status == OK and edge.target in stranded for edge in graph.out.get(rel, ())))


def _indexes_listing(graph, rel: str) -> tuple[list[str], list[str]]:
    """(the indexes that link to ``rel``, those of them the root reaches, too far down to route to it)."""
    docs = graph.store.docs
    inbound = graph.inbound.get(rel, ())
    indexes = sorted({e.source for e in inbound if docs[e.source].role in INDEX_ROLES and e.source != rel})
    return indexes, [r for r in indexes if r in graph.depth]


def _deep_index(graph, rel: str) -> str | None:
    return next(iter(_indexes_listing(graph, rel)[1]), None)


def _why(graph, rel: str) -> str:
    docs = graph.store.docs
    max_depth = graph.store.settings["index-depth"]
    inbound = graph.inbound.get(rel, ())
    indexes, deep = _indexes_listing(graph, rel)
    if indexes and not deep:
        return f"listed only in {name_some(indexes, 2)}, which the root does not reach either"
    if deep:
        return f"listed only in {deep[0]}, which is {plural(graph.depth[deep[0]], 'link')} from the root; index-depth is {max_depth}"
    from_memories = sorted({e.source for e in inbound if e.source != rel and docs[e.source].role not in INDEX_ROLES})
    if from_memories:
        return f"linked only from {name_some(from_memories, 2)}, which the agent does not route by"
    return "no index links to it"


def _hint(finder: IndexFinder, rel: str, root_full: dict) -> str:
    best = finder.best(rel)
    if best is None:
        topic = finder.unread_topic(rel)
        if topic is not None and topic in finder.behind_cut:  # the root links it only where its load cap drops
            within = " within index-depth" if topic in finder.loaded_depth else ""  # reached too deep otherwise
            return (f"; add an entry for it to its topic {topic}, and link {topic} from a line the agent loads "
                    f"({topic} is reached{within} only through {finder.cut_what} {finder.graph.store.root_name}'s "
                    "load cap drops, so the agent does not read it now)")
        if topic is not None:
            return (f"; add an entry for it to its topic {topic}, and link {topic} from an index the root "
                    "reaches (the agent does not read it now)")
        return "; add an entry for it to the index where it belongs"
    index, near = best
    store = finder.graph.store
    if index == store.root_name:
        line = near[1] if near else None
        full = root_full[line] if line in root_full else root_full.setdefault(line, _root_full(store, line))
        if full:
            return (f"; {index} {full}; file it in a topic index, moving "
                    f"some of {index}'s entries into one first if none fits")
    elif (full := root_full[index] if index in root_full
          else root_full.setdefault(index, _topic_full(store, index))) is not None:  # an entry there: MEM103's finding
        return f"; {index} {full}; file it in another topic index, or split {index} into sub-topics first"
    if near is None:
        return f"; add an entry for it to {index}"
    return f"; add an entry for it to {index}, beside {near[0]} (line {near[1]})"


def _ignored(store, rule, doc) -> bool:
    """Whether a rule's ``ignore:`` globs hold ``doc``, as the linter reads them
    (from the repository's top, or the store's folder and the config's)."""
    return bool(rule.ignore) and (glob_match(doc.path, rule.ignore)
                                  or glob_match(doc.rel, store.config_globs(rule.ignore)))


def _topic_full(store, index: str) -> str | None:
    """Why a topic index has no room for one more entry: it is at its
    entry or line cap (topic-oversized's options, unless that rule is off
    or its `ignore:` or the topic's directives leave the topic out), as the
    hint says it after the topic's name; None when there is room."""
    from memlint.rules import keys_of, topic_oversized
    from memlint.rules._common import entry_lines, lines_but_blank_tail

    doc = store.docs.get(index)
    rule = store.config.rule_config(topic_oversized, store.preset)
    if doc is None or doc.role != "index" or doc.parsed is None or rule.severity == "off":
        return None
    if _ignored(store, rule, doc):
        return None  # its `ignore:` leaves the topic to grow
    max_entries, max_lines = rule.options["max-entries"], rule.options["max-lines"]
    entries_at = entry_lines(doc, store)
    lines = lines_but_blank_tail(doc)
    entry_full = max_entries is not None and len(entries_at) >= max_entries
    line_full = max_lines is not None and lines >= max_lines
    if (entry_full or line_full) and doc.parsed.may_hold_directives():
        # nor where its own directives hide MEM103 on each line an added entry may push a finding to:
        # the entry cap's, from the cap-th entry's line to past the end; the line cap's, max-lines + 1
        keys = keys_of(topic_oversized)
        hidden = suppress.parse(doc.parsed.text)
        first = entries_at[max_entries - 1] if entry_full and max_entries else 1
        entry_full = entry_full and not all(hidden.hides(line, keys) for line in range(first, doc.parsed.line_count + 2))
        # (the line cap's: on line max-lines + 1, what is now line max-lines there after an entry added above)
        line_full = line_full and not (hidden.hides(max_lines + 1, keys) and hidden.hides(max_lines, keys))
    if entry_full:
        return f"is full: it lists {plural(len(entries_at), 'entry')}, its cap is {max_entries:,}"
    if line_full:
        return f"is full: it is {plural(lines, 'line')}, its cap is {max_lines:,}"
    return None


def _root_full(store, near_line: int | None) -> str | None:
    """Why the root has no room for one more entry, as the hint says it
    after the root's name: it is already over its load cap (MEM101's
    options: it loses lines now) or past its line budget (``budget-lines``),
    or one more entry (a line as long as its line ``near_line``, set after
    it, or a short one before its trailing blank lines) would take it over
    one of them, losing a line that loads now; None when there is room."""
    from memlint.rules import keys_of, root_budget

    rule = store.config.rule_config(root_budget, store.preset)
    options = rule.options
    caps = options["max-lines"], options["max-bytes"], options["max-chars"]
    text = root_budget.loaded_text(store, store.root)
    # The load cap is the harness's: it cuts whatever memlint is told. The line
    # budget is the store's own style, as topic-oversized's caps are: not where
    # MEM101 is off, its `ignore:` holds the root, or a directive of the root
    # hides its budget finding (on line budget-lines + 1; after an entry added
    # above it, what is now line budget-lines is there).
    budget = grown_budget = options["budget-lines"]
    root = store.root
    if budget is not None and (
            rule.severity == "off"
            or _ignored(store, rule, root)):
        budget = grown_budget = None
    elif budget is not None and root.parsed is not None and root.parsed.may_hold_directives():
        hidden = suppress.parse(root.parsed.text)
        keys = keys_of(root_budget)
        if hidden.hides(budget + 1, keys):
            budget = None
            if hidden.hides(grown_budget, keys):
                grown_budget = None
    if not root_budget.nothing_lost(text, root_budget.hidden_ranges(text, *caps)):
        over = ", ".join(root_budget.caps_exceeded(text, text.count("\n") + (not text.endswith("\n")), *caps))
        return f"is already over its load cap ({over or 'as the harness cuts it'}): part of it does not load now"
    if root_budget.past_budget(text, budget):
        return f"is already past its budget of {budget:,} lines"
    lines = text.split("\n")
    at = len(lines)
    while at > 0 and not lines[at - 1].strip():
        at -= 1  # (the blank lines that end it, and the empty piece after its last newline)
    if near_line and near_line <= len(lines):
        entry, at = lines[near_line - 1], near_line
    else:
        entry = "- [a new memory](new.md)"
    grown = "\n".join([*lines[:at], entry, *lines[at:]])
    if not root_budget.nothing_lost(grown, root_budget.hidden_ranges(grown, *caps)):
        over = ", ".join(root_budget.caps_exceeded(grown, grown.count("\n") + (not grown.endswith("\n")), *caps))
        return (f"is full: one more entry would take it over its load cap ({over or 'as the harness cuts it'}), "
                "and a line that loads now would not")
    if root_budget.past_budget(grown, grown_budget):
        return f"is full: one more entry would take it over its budget of {grown_budget:,} lines"
    return None
