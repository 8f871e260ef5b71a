"""The repository is a shallow clone, so git's dates are wrong: reported once per store.

Why: a shallow clone (GitHub Actions' ``actions/checkout`` fetches one
commit by default) has no history before its oldest commit, so every file
there looks created and last changed at that commit. memlint does not judge
from those dates: the rules that compare frontmatter with git (MEM401,
MEM404), staleness from git's last change (MEM501) and ``memlint backfill``
treat every git date as unknown, and this one finding says why.

Options: none.

Fires: ``memlint check`` in a ``git clone --depth 1`` checkout, on the
store's root index, once.

Fix: fetch the whole history. In GitHub Actions:

    - uses: actions/checkout@v4
      with:
        fetch-depth: 0

By hand: ``git fetch --unshallow``.
"""
from memlint.finding import Problem
from memlint.gitrun import advice

CODE = "MEM403"
NAME = "shallow-history"
SEVERITY = "warning"
SCOPE = "store"
TAGS = ("dates", "git")
OPTIONS: dict = {}


def check(store, options):
    git = store.git_dates
    if git.require() is None or not git.shallow:
        return
    where = store.root.path if store.root is not None else next(iter(sorted(d.path for d in store.docs.values())), None)
    if where is None:
        return
    fetch = advice(store.repo_root, ["fetch", "--unshallow"], [])
    yield Problem(
        where, 1, 1,
        "shallow clone: git history stops at the oldest fetched commit, so every file would look created "
        f"and changed there; the git date checks are skipped. Fetch the full history: `{fetch}`, "
        "or in GitHub Actions `actions/checkout` with `fetch-depth: 0`",
    )
