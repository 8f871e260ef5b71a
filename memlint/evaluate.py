"""Golden-set eval: does each known question still reach the memory it must?

A golden set is a YAML list of ``{q: question, expect: memory file}``. For
each question memlint walks the store the way an agent does, root -> topic
index -> memory, and judges three things:

* reachable: ``expect`` is reached from the root through index files within
  the preset's ``index-depth`` (the same walk as the link graph); the path
  is the chain of index lines (file:line) that leads there.
* loaded: that walk still reaches ``expect`` when the root's lines past its
  load cap (``root-budget`` options) are dropped, as the harness drops them.
* routed@k: a lexical router picks the way. At every index on the way down
  it ranks the index's entry lines by BM25 between the question and the
  line's words (link text and hook: the line without link destinations) and
  follows only its top ``k``. A question is routed when some chain of top-k
  lines leads to ``expect``. An entry that shares no word with the question
  is never picked; tied scores share a rank.

A question passes when all three hold. Everything here is pure: no output,
no exit codes; ``memlint.commands.eval`` is the command.
"""
from __future__ import annotations

import math
import os
import posixpath
import re
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

import yaml

from memlint.cjk import HANGUL_SYLLABLES, UNSPACED
from memlint.engagement import ENGLISH_STOP_WORDS
from memlint.graph import EXTERNAL, OK, root_links_cut_off
from memlint.rules._common import name_some

if TYPE_CHECKING:  # pragma: no cover
    from memlint.store import Doc, Store

DEFAULT_K = 3
FORMAT_VERSION = 1
GOLDEN_KEYS = ("q", "expect")
INDEX_ROLES = ("root", "index")
# BM25 parameters: the usual Okapi defaults.
BM25_K1 = 1.2
BM25_B = 0.75


class GoldenError(Exception):
    """A golden set or a saved run that cannot be read; the message names file:line."""


# ---------------------------------------------------------------- golden set


@dataclass(frozen=True)
class Question:
    q: str
    expect: str
    line: int  # 1-based line of the item in the golden file


def _spelling(path: str) -> str:
    """One spelling of a golden ``expect`` path: / separators, no ./ steps."""
    return posixpath.normpath(path.replace("\\", "/"))


def load_golden(path: Path) -> list[Question]:
    """Read and strictly validate a golden set: a non-empty list of {q, expect}."""
    try:
        if Path(path).exists() and not Path(path).is_file():  # a FIFO would block the read forever
            raise GoldenError(f"{path}: not a regular file")
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise GoldenError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GoldenError(f"{path}: not UTF-8 text") from None
    return parse_golden(text, str(path))


def parse_golden(text: str, name: str) -> list[Question]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise GoldenError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise GoldenError(f"{name}: nested too deeply to be a golden set") from None
    if node is None:
        raise GoldenError(f"{name}:1: empty golden set; expected a list of {{q: question, expect: path/to/memory.md}}")
    if not isinstance(node, yaml.SequenceNode):
        raise GoldenError(f"{name}:{node.start_mark.line + 1}: expected a list of {{q: question, expect: path/to/memory.md}}")
    if not node.value:
        raise GoldenError(f"{name}:{node.start_mark.line + 1}: the golden set has no questions")
    questions: list[Question] = []
    seen: dict[tuple[str, str], int] = {}
    for item in node.value:
        line = item.start_mark.line + 1
        if not isinstance(item, yaml.MappingNode):
            raise GoldenError(f"{name}:{line}: each item must be a mapping with keys q and expect")
        values: dict[str, str] = {}
        for key_node, value_node in item.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            key_line = key_node.start_mark.line + 1
            if key not in GOLDEN_KEYS:
                raise GoldenError(f"{name}:{key_line}: unknown key {key!r} (expected q and expect)")
            if key in values:
                raise GoldenError(f"{name}:{key_line}: duplicate key {key!r}")
            if not (isinstance(value_node, yaml.ScalarNode) and value_node.tag == "tag:yaml.org,2002:str"):
                raise GoldenError(f"{name}:{value_node.start_mark.line + 1}: {key} must be a string")
            value = value_node.value.strip()
            if not value:
                raise GoldenError(f"{name}:{value_node.start_mark.line + 1}: {key} is empty")
            if key == "expect" and ("\n" in value or "\r" in value):
                raise GoldenError(f"{name}:{value_node.start_mark.line + 1}: expect must be one path, on one line")
            values[key] = value
        for key in GOLDEN_KEYS:
            if key not in values:
                raise GoldenError(f"{name}:{line}: missing {key!r}")
        pair = (values["q"], _spelling(values["expect"]))  # ./a.md and a.md are one file
        if pair in seen:
            raise GoldenError(f"{name}:{line}: the same question and file as line {seen[pair]}")
        seen[pair] = line
        questions.append(Question(values["q"], values["expect"], line))
    return questions


def propose_golden(store: "Store") -> list[dict]:
    """One question per memory, from its description (else name/title, else
    its first heading, else its file name), for a person to edit. Retired,
    superseded and expired memories get none: no index should route to them."""
    proposed = []
    lifecycle = store.lifecycle
    for doc in sorted(store.memories, key=lambda d: d.path):
        if lifecycle.retired_because(doc.rel):
            continue
        q = _question_for(doc)
        if q:
            proposed.append({"q": q, "expect": doc.path})  # as the store names it: the same from any folder
    return proposed


def golden_yaml(proposed: list[dict], store_name: str) -> str:
    header = (
        f"# Golden set for {store_name}, proposed by `memlint eval --init`.\n"
        "# Rewrite each q as a person would ask it: a copied description matches\n"
        "# its own index line word for word and proves little. Delete what no one\n"
        "# would ask; keep expect as the file that must answer.\n"
    )
    if not proposed:
        return header + "[]\n"
    body = yaml.safe_dump(proposed, allow_unicode=True, sort_keys=False, width=1000, default_flow_style=False)
    # A blank line between items reads better when a person edits it.
    return header + re.sub(r"\n(?=- q:)", "\n\n", body)


def _question_for(doc: "Doc") -> str | None:
    for key in ("description", "name", "title"):
        value = doc.field(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    if doc.parsed is not None:
        for line in doc.parsed.body.split("\n"):
            if line.startswith("#"):
                heading = line.lstrip("#").strip()
                if heading:
                    return heading
    words = re.sub(r"[-_]+", " ", doc.stem).strip()
    return words or None


# ---------------------------------------------------------------- words and BM25

# Scripts written without spaces (Chinese, Japanese, half-width katakana
# included) count one character as one word, and so does Korean, whose
# particles are glued on (서버를); other scripts split on anything not a
# letter or digit.
_CJK = UNSPACED + HANGUL_SYLLABLES
_WORD = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+", re.U)
_LINK_DEST = re.compile(r"\]\([^)\n]*\)|\]\[[^\]\n]*\]")  # [text](dest), [text][ref]
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>")


def words(text: str) -> list[str]:
    """Lower-cased words without stop words, plurals folded (costs -> cost)."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in ENGLISH_STOP_WORDS:
            continue
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def entry_words(line: str) -> str:
    """What a router reads on an index line: link text and hook, not destinations."""
    return _AUTOLINK.sub(" ", _LINK_DEST.sub("] ", line))


@dataclass(frozen=True)
class Entry:
    source: str  # store-relative path of the index file
    line: int
    text: str  # the line as written, stripped
    targets: tuple[str, ...]  # store-relative files its links resolve to
    terms: Counter


class Router:
    """BM25 over every index line of a store; ranks the lines of one index."""

    def __init__(self, store: "Store", hidden_from: dict[str, set[int]], routes_on,
                 cut_off_from: dict[str, set[tuple[int, str]]] | None = None):
        graph = store.graph
        self.entries: dict[str, list[Entry]] = {}
        for rel, edges in graph.out.items():
            doc = store.docs[rel]
            if doc.parsed is None or not routes_on(rel):
                continue
            hidden = hidden_from.get(rel, ())
            cut_off = (cut_off_from or {}).get(rel, ())  # loaded links whose reference definition is not loaded
            by_line: dict[int, list[str]] = {}
            for edge in edges:
                if edge.status == EXTERNAL:
                    continue
                if edge.link.line in hidden:
                    continue  # never loaded: the router cannot see it
                targets = by_line.setdefault(edge.link.line, [])
                if (edge.status == OK and edge.target not in targets
                        and (edge.link.line, edge.link.target) not in cut_off):  # its words load, not its target
                    targets.append(edge.target)
            lines = doc.parsed.text.split("\n")
            self.entries[rel] = [
                Entry(rel, n, lines[n - 1].strip(), tuple(targets), Counter(words(entry_words(lines[n - 1]))))
                for n, targets in sorted(by_line.items())
                if 0 < n <= len(lines)
            ]
        every = [e for entries in self.entries.values() for e in entries]
        self.n = len(every)
        self.avg_len = (sum(sum(e.terms.values()) for e in every) / self.n) if self.n else 0.0
        self.df: Counter = Counter()
        for e in every:
            self.df.update(e.terms.keys())

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def score(self, query: Sequence[str], entry: Entry) -> float:
        length = sum(entry.terms.values())
        norm = BM25_K1 * (1 - BM25_B + BM25_B * (length / self.avg_len if self.avg_len else 0))
        total = 0.0
        for term in set(query):
            tf = entry.terms.get(term, 0)
            if tf:
                total += self.idf(term) * tf * (BM25_K1 + 1) / (tf + norm)
        return total

    def rank(self, query: Sequence[str], rel: str) -> list[tuple[int, float, Entry]]:
        """(rank, score, entry) for every line of index ``rel``, best first;
        rank 1 is the best, ties share a rank."""
        scored = sorted(((self.score(query, e), e) for e in self.entries.get(rel, ())), key=lambda p: (-p[0], p[1].line))
        ranked, previous, rank = [], None, 0
        for i, (score, entry) in enumerate(scored, 1):
            if score != previous:
                rank, previous = i, score
            ranked.append((rank, score, entry))
        return ranked


# ---------------------------------------------------------------- outcome


@dataclass(frozen=True)
class Hop:
    """One index line followed: where it is, and how the router ranked it."""

    path: str  # repo-relative path of the index file
    line: int
    target: str  # repo-relative path the line leads to
    text: str = ""
    rank: int | None = None  # None: the router never saw the line (past the load cap)
    of: int = 0  # lines in that index
    score: float = 0.0


@dataclass
class Outcome:
    q: str
    expect: str
    line: int  # of the question in the golden file
    found: str | None  # repo-relative path of the memory, None if not in the store
    reachable: bool = False
    loaded: bool = False
    routed: bool = False
    path: list[Hop] = field(default_factory=list)  # the walk: root -> ... -> expect
    route: list[Hop] = field(default_factory=list)  # the routed walk, when routed
    why: str = ""  # the first reason it fails

    @property
    def passed(self) -> bool:
        return self.reachable and self.loaded and self.routed

    def to_dict(self) -> dict:
        data = asdict(self)
        data["passed"] = self.passed
        return data


def evaluate(stores: Sequence["Store"], questions: Iterable[Question], k: int = DEFAULT_K) -> list[Outcome]:
    contexts = [_Context(store) for store in stores]
    return [_evaluate_one(contexts, question, k) for question in questions]


class Walk:
    """The agent's walk from the root, twice: over every line, and over the
    lines the harness loads (the root cut at its load cap). ``parents_all``
    and ``parents_loaded`` map each file reached to the edge that first
    reached it (None for the root)."""

    def __init__(self, store: "Store"):
        from memlint.rules import root_budget

        self.store = store
        self.root = store.root
        self.max_depth = store.settings["index-depth"]
        self.body_links = store.settings["body-links-reach"]
        self.hidden_ranges: list[tuple[int, int]] = []  # the root's lines the harness does not load
        if self.root is not None and self.root.parsed is not None:
            options = store.config.rule_config(root_budget, store.preset).options
            self.hidden_ranges = root_budget.hidden_ranges(
                root_budget.loaded_text(store, self.root), options["max-lines"], options["max-bytes"], options["max-chars"]
            )
        self.hidden: set[int] = set().union(*(range(a, b + 1) for a, b in self.hidden_ranges))
        # its links above the cut whose reference definition is below it: loaded as words without a target (MEM101's)
        self.cut_off = root_links_cut_off(store, self.hidden)
        self.parents_all = self._walk(skip_hidden=False)
        self.parents_loaded = self._walk(skip_hidden=True) if self.hidden else self.parents_all

    def find(self, expect: str) -> str | None:
        """The store-relative path ``expect`` names: repo-relative,
        store-relative or absolute, spelt any way a path may be
        (``./x``, ``a//b``, ``a/./b``, backslashes)."""
        wanted = expect.replace("\\", "/")
        if wanted.startswith("/"):  # absolute: the path within the store, if it is in it
            try:
                wanted = Path(os.path.normpath(wanted)).relative_to(self.store.dir).as_posix()
            except ValueError:
                return None
            return wanted if wanted in self.store.docs else None
        wanted = posixpath.normpath(wanted)
        for doc in self.store.docs.values():
            if doc.path == wanted or self.store.shown(doc.path) == wanted:
                return doc.rel
        return wanted if wanted in self.store.docs else None

    def routes_on(self, rel: str) -> bool:
        doc = self.store.docs.get(rel)
        return doc is not None and (doc.role in INDEX_ROLES or self.body_links)

    def _walk(self, *, skip_hidden: bool) -> dict:
        """Breadth first from the root, as the link graph walks, keeping the
        edge each file was first reached by. ``skip_hidden`` drops the root's
        lines past its load cap."""
        if self.root is None:
            return {}
        graph = self.store.graph
        parents: dict = {self.root.rel: None}
        depth = {self.root.rel: 0}
        queue = deque([self.root.rel])
        while queue:
            rel = queue.popleft()
            if depth[rel] >= self.max_depth or not self.routes_on(rel):
                continue
            for edge in sorted(graph.out.get(rel, ()), key=lambda e: (e.link.line, e.link.column)):
                if edge.status != OK or edge.target in parents:
                    continue
                if skip_hidden and rel == self.root.rel and (
                        edge.link.line in self.hidden or (edge.link.line, edge.link.target) in self.cut_off):
                    continue
                parents[edge.target] = edge
                depth[edge.target] = depth[rel] + 1
                queue.append(edge.target)
        return parents

    def chain(self, parents: dict, rel: str) -> list:
        edges = []
        while parents.get(rel) is not None:
            edge = parents[rel]
            edges.append(edge)
            rel = edge.source
        return edges[::-1]


class _Context(Walk):
    """What every question of one store shares: the walk and the router."""

    def __init__(self, store: "Store"):
        super().__init__(store)
        hidden = {self.root.rel: self.hidden} if self.root is not None and self.hidden else {}
        cut_off = {self.root.rel: self.cut_off} if self.cut_off else {}
        self.router = Router(store, hidden, self.routes_on, cut_off)

    def hop(self, query, edge, ranks=None) -> Hop:
        docs = self.store.docs
        ranks = ranks if ranks is not None else self.router.rank(query, edge.source)
        for rank, score, entry in ranks:
            if entry.line == edge.link.line:
                return Hop(self.name(edge.source), edge.link.line, self.name(edge.target), entry.text, rank, len(ranks), round(score, 3))
        line_text = docs[edge.source].parsed.text.split("\n")[edge.link.line - 1].strip()
        return Hop(self.name(edge.source), edge.link.line, self.name(edge.target), line_text, None, len(ranks))

    def name(self, rel: str) -> str:
        """A file as the output names it (as check does, with several repositories)."""
        return self.store.shown(self.store.docs[rel].path)

    def route(self, query, target: str, k: int) -> list[Hop] | None:
        """A chain of top-k lines from the root to ``target``, or None."""
        failed: set[tuple[str, int]] = set()

        def down(rel: str, depth: int) -> list[Hop] | None:
            if depth >= self.max_depth or not self.routes_on(rel) or (rel, depth) in failed:
                return None
            ranks = self.router.rank(query, rel)
            for rank, score, entry in ranks:
                if rank > k or score <= 0:
                    break
                for nxt in entry.targets:
                    here = Hop(self.name(rel), entry.line, self.name(nxt), entry.text, rank, len(ranks), round(score, 3))
                    if nxt == target:
                        return [here]
                    rest = down(nxt, depth + 1)
                    if rest is not None:
                        return [here, *rest]
            failed.add((rel, depth))
            return None

        return down(self.root.rel, 0) if self.root is not None else None


def _evaluate_one(contexts: list[_Context], question: Question, k: int) -> Outcome:
    found = [(candidate, target) for candidate in contexts
             if (target := candidate.find(question.expect)) is not None]
    outcome = Outcome(question.q, question.expect, question.line, None)
    if not found:
        outcome.why = f"{question.expect} is not a file of the store"
        return outcome
    if len({candidate.name(target) for candidate, target in found}) > 1:  # a store-relative path in each of them
        # the one whose path in the repository it is, if one is
        written = os.path.normpath(question.expect.replace("\\", "/")).replace(os.sep, "/")
        exact = [(candidate, target) for candidate, target in found if candidate.name(target) == written]
        if len(exact) != 1:
            names = ", ".join(candidate.name(target) for candidate, target in found)
            outcome.why = (f"{question.expect} names a file in {len(found)} stores ({names}): "
                           "write its path in the repository")
            return outcome
        found = exact
    context, target = found[0]
    store = context.store
    outcome.found = context.name(target)
    if context.root is None:
        outcome.why = "the store has no root index"
        return outcome
    if target == context.root.rel:  # the root itself: loaded at every session start, nothing to route through
        outcome.reachable = outcome.loaded = outcome.routed = True
        return outcome
    query = words(question.q)
    outcome.reachable = target in context.parents_all
    outcome.loaded = target in context.parents_loaded
    walk = context.parents_loaded if outcome.loaded else context.parents_all
    edges = context.chain(walk, target)
    outcome.path = [context.hop(query, e) for e in edges]
    route = context.route(query, target, k) if query else None
    outcome.routed = route is not None
    outcome.route = route or []
    if not outcome.reachable:
        sources = sorted({context.name(e.source) for e in store.graph.inbound.get(target, ())})
        if sources:
            outcome.why = (f"not reachable: linked only from {name_some(sources, 3)}, which the walk from {context.name(context.root.rel)} "
                           f"does not read as an index within {context.max_depth} levels")
        else:
            outcome.why = "not reachable: nothing links to it"
    elif not outcome.loaded:
        first = outcome.path[0]
        dropped = " and ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in context.hidden_ranges)
        where = ("links through a reference definition past" if first.line not in context.hidden
                 else "is past")  # its line loads, its `[x]: file.md` does not
        outcome.why = (f"not loaded: {first.path}:{first.line} {where} the root's load cap "
                       f"(line{'s' if len(context.hidden) > 1 else ''} {dropped} dropped)")
    elif not outcome.routed:
        outcome.why = _why_not_routed(outcome.path, k, query)
    return outcome


def _why_not_routed(path: list[Hop], k: int, query: list[str]) -> str:
    if not query:
        return "not routed: the question has no words to match (only stop words)"
    for hop in path:
        if hop.rank is None or hop.score <= 0 or hop.rank > k:
            shared = "shares no word with the question" if hop.score <= 0 else f"ranked {hop.rank} of {hop.of}"
            return f"not routed@{k}: at {hop.path}, line {hop.line} {shared}"
    return f"not routed@{k}: no chain of top-{k} lines leads to it"


# ---------------------------------------------------------------- runs


def totals(outcomes: Sequence[Outcome], k: int) -> dict:
    n = len(outcomes)

    def share(count: int) -> dict:
        return {"count": count, "percent": round(100 * count / n, 1) if n else 0.0}

    return {
        "questions": n,
        "k": k,
        "passed": share(sum(o.passed for o in outcomes)),
        "reachable": share(sum(o.reachable for o in outcomes)),
        "loaded": share(sum(o.loaded for o in outcomes)),
        "routed": share(sum(o.routed for o in outcomes)),
    }


def run_record(outcomes: Sequence[Outcome], k: int, golden: str) -> dict:
    return {
        "memlint-eval": FORMAT_VERSION,
        "golden": golden,
        "k": k,
        "totals": totals(outcomes, k),
        "questions": [o.to_dict() for o in outcomes],
    }


@dataclass(frozen=True)
class Baseline:
    k: int
    passed: dict[tuple[str, str, str], bool]  # (q, "file", path found) and (q, "spelt", expect as spelt)

    def before(self, outcome: "Outcome") -> bool | None:
        """Whether the question passed in the baseline (None: not in it). The
        same question and file, however ``expect`` is spelt in either run."""
        if outcome.found is not None and (outcome.q, "file", outcome.found) in self.passed:
            return self.passed[(outcome.q, "file", outcome.found)]
        return self.passed.get((outcome.q, "spelt", _spelling(outcome.expect)))


def same_question_twice(outcomes: Sequence["Outcome"]) -> tuple["Outcome", "Outcome"] | None:
    """Two questions of a golden set that ask the same for the same file,
    spelt two ways (``memory/a.md`` and ``a.md``): (the first, the second)."""
    seen: dict[tuple[str, str], Outcome] = {}
    for outcome in outcomes:
        if outcome.found is None:
            continue
        first = seen.setdefault((outcome.q, outcome.found), outcome)
        if first is not outcome:
            return first, outcome
    return None


def load_baseline(path: Path) -> Baseline:
    """A run saved with --save; strictly checked, since a bad one would hide regressions."""
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise GoldenError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise GoldenError(f"{path}: not a saved eval run (not JSON: {exc})") from None
    except RecursionError:
        raise GoldenError(f"{path}: not a saved eval run (nested too deeply)") from None
    if not isinstance(data, dict) or data.get("memlint-eval") != FORMAT_VERSION or not isinstance(data.get("questions"), list):
        raise GoldenError(f"{path}: not a saved eval run (write one with memlint eval --save FILE)")
    passed = {}
    for i, item in enumerate(data["questions"]):
        if not (isinstance(item, dict) and isinstance(item.get("q"), str) and isinstance(item.get("expect"), str)
                and isinstance(item.get("passed"), bool)):
            raise GoldenError(f"{path}: question {i + 1} of the saved run lacks q, expect or passed")
        if isinstance(item.get("found"), str):
            passed[(item["q"], "file", item["found"])] = item["passed"]
        passed[(item["q"], "spelt", _spelling(item["expect"]))] = item["passed"]
    k = data.get("k")
    return Baseline(k if isinstance(k, int) else DEFAULT_K, passed)


def regressions(baseline: Baseline, outcomes: Sequence[Outcome]) -> list[Outcome]:
    """Questions that passed in the baseline and fail now."""
    return [o for o in outcomes if baseline.before(o) is True and not o.passed]


def fixed(baseline: Baseline, outcomes: Sequence[Outcome]) -> list[Outcome]:
    """Questions that failed in the baseline and pass now."""
    return [o for o in outcomes if baseline.before(o) is False and o.passed]
