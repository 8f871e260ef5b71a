"""Frontmatter ``created`` differs from the day git first added the file.

Why: ``created`` orders memories (newest wins in a conflict), ages them and
tells a reader how old a fact is. A date typed by hand or copied from another
memory drifts; git's first add (followed back through renames, not copies,
and not into an earlier file deleted at the same path) is what happened.

Options: ``tolerance-days`` (default 1): how many days apart the two may be
(time zones and commits made a day later stay quiet). ``allow-earlier``
(default false): accept a ``created`` before the first add, for memories
written before the store was put in git. A ``created`` before the first add
is accepted anyway for files the store's first commit added (the store was
imported with them: git cannot tell how old they are).

Quiet when the file is not committed yet (in a staged run, pre-commit
included, a file added in this commit is created today), when there is no git
(one notice says the git rules were skipped) and in a shallow clone (MEM403
says so instead: every file would look created at the oldest fetched commit).

Fires: ``created: 2024-01-02`` on a file git first added on 2024-03-05.

Fix: set ``created`` to the date git gives (the message says it), or, for a
memory older than its repository, set ``allow-earlier: true``.
"""
from memlint.finding import Problem
from memlint.lifecycle import date_field
from memlint.rules._common import plural

CODE = "MEM401"
NAME = "created-mismatch"
SEVERITY = "warning"
SCOPE = "file"
LOCAL = True
TAGS = ("dates", "git")
OPTIONS = {"tolerance-days": ((int,), 1), "allow-earlier": ((bool,), False)}


def check(doc, store, options):
    if doc.frontmatter is None or doc.field("created") in (None, ""):
        return
    written = date_field(doc, "created")
    if written is None:  # unparseable: MEM004's finding
        return
    git = store.git_dates
    if git.require() is None:
        return
    dates = git.of(doc)
    if dates.created is None:
        return
    days = (written - dates.created).days
    if abs(days) <= max(0, options["tolerance-days"]) or (days < 0 and options["allow-earlier"]):
        return
    if days < 0 and dates.created_commit in git.first_commits:
        return  # came into git with the store's first commit: it may well be older, git cannot say
    commit = "the commit being made" if dates.created_commit == "staged" else f"commit {dates.created_commit[:7]}"
    side = "before" if days < 0 else "after"
    older = "; or, if the memory is older than its repository, set the rule's `allow-earlier: true`" if days < 0 else ""
    yield Problem(
        doc.path, doc.key_line("created"), 1,
        f"`created: {written.isoformat()}` is {plural(abs(days), 'day')} {side} git first added this file "
        f"on {dates.created.isoformat()} ({commit}): set `created: {dates.created.isoformat()}`{older}",
    )
