"""The memory changed in git after its ``last_verified`` date: what it says now was never verified.

Why: ``last_verified`` vouches for the text as it was on that day. An edit
after it (a new price, a reworded rule, a branch's edit that a merge brought
in) leaves the memory looking verified while nobody checked the new text,
and staleness (MEM501) trusts the date.

A change is a commit that touched more than date lines: a commit that only
writes ``created``/``last_verified``/other date fields (by hand or by
``memlint backfill``; a line with a date or no value) or frontmatter fences
is not one, nor is a pure rename, nor a line rewritten with only dates
added to it, only its line ending changed (CRLF), or, for a ``key:`` line,
only its spacing (backfill rewriting a flow mapping or a frontmatter
indented as a whole). A line of the body that starts with
a field's name and says more (``expires: with Q3``) is a change. Merge commits are skipped: an edit made on a branch counts with its
own commit's date, and what was changed only while resolving a merge
does not count. In a staged run (pre-commit) the commit being made counts, dated
today, unless it is a merge (the merged branches' commits are read instead).
Quiet without git (one notice), in a shallow clone (MEM403), for a file
added after the date (moving a verified memory into the repository is not an
edit), and on a retired memory (``status: outdated``...; store setting
``retired-exempt-rules``): the edit that retires it is a change, and a memory
no longer loaded needs no verifying.

Options: ``tolerance-days`` (default 1): a change this many days after the
date is taken as part of the verification (commits made the next day).

Fires: ``last_verified: 2026-03-01`` and a commit of 2026-04-10 that edited
the body.

Fix: read the memory again; if it still holds, set ``last_verified`` to
today. If it no longer holds, correct it or retire it (``status: outdated``).
"""
from memlint.finding import Problem
from memlint.lifecycle import date_field
from memlint.rules._common import plural

CODE = "MEM404"
NAME = "changed-since-verified"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("dates", "git")
OPTIONS = {"tolerance-days": ((int,), 1)}


def check(store, options):
    git = store.git_dates
    if git.require() is None or not git.usable:
        return
    tolerance = max(0, options["tolerance-days"])
    wanted, docs = {}, {}
    for doc in store.docs.values():
        if doc.frontmatter is None:
            continue
        verified = date_field(doc, "last_verified")
        if verified is None:
            continue
        changed = git.of(doc).changed
        if changed is None or (changed - verified).days <= tolerance:
            continue  # the last change of any kind is within the tolerance: nothing to look at
        path = git.repo_path(doc)
        wanted[path] = verified.fromordinal(verified.toordinal() + tolerance)
        docs[path] = (doc, verified)
    from memlint.history import HistoryError

    try:
        changes = git.content_changes_after(wanted)
    except HistoryError as exc:
        store.notice(f"{CODE} {NAME} skipped: {exc}")
        return
    for path, (when, commit) in sorted(changes.items()):
        doc, verified = docs[path]
        by = "the commit being made" if commit == "staged" else f"commit {commit[:7]}"
        yield Problem(
            doc.path, doc.key_line("last_verified"), 1,
            f"changed on {when.isoformat()} ({by}), {plural((when - verified).days, 'day')} after "
            f"`last_verified: {verified.isoformat()}`: what it says now was not verified; check it, then set "
            f"`last_verified: {store.today.isoformat()}`",
        )
