"""MEM301 duplicate-content, MEM302 near-duplicate, MEM303 duplicate-name."""
from __future__ import annotations

import shutil

import pytest

from memlint import config, fingerprint as fingerprint_module
from memlint.linter import Selection, lint_store
from memlint.store import load_stores
from tests.conftest import TESTDATA
from tests.gitrepo import GitRepo

TODAY = "2026-11-30"

DEPLOYS = """\
# Deploys go through staging

Never push a release straight to production from a laptop.
The staging pipeline runs the migration dry run and the smoke tests first.

**Why:** a direct push in March skipped the schema check and took billing down for two hours.

**How to apply:**
- Open a pull request against the release branch and wait for the staging job.
- Read the migration report in the job summary before approving.
- Tag the release only after the canary has been healthy for fifteen minutes.
"""

# DEPLOYS re-typed by another session: other line breaks, case, emphasis and list markers.
DEPLOYS_RETYPED = """\
## DEPLOYS GO THROUGH STAGING

never push a release   straight to production from a **laptop**.  The staging
pipeline runs the migration dry run and the smoke tests first.

__Why:__ a direct push in March skipped the schema check and took billing down for two hours.

How to apply:

* Open a pull request against the release branch and wait for the staging job.
* Read the migration report in the job summary before approving.
* Tag the release only after the canary has been healthy for fifteen minutes.
"""

# DEPLOYS with one sentence changed.
DEPLOYS_EDITED = DEPLOYS.replace(
    "a direct push in March skipped the schema check and took billing down for two hours.",
    "the user was paged at night after a broken release and asked for a hard rule.",
)

# DEPLOYS with its bullets and first two lines in another order.
DEPLOYS_REORDERED = """\
# Deploys go through staging

The staging pipeline runs the migration dry run and the smoke tests first.
Never push a release straight to production from a laptop.

**Why:** a direct push in March skipped the schema check and took billing down for two hours.

**How to apply:**
- Tag the release only after the canary has been healthy for fifteen minutes.
- Open a pull request against the release branch and wait for the staging job.
- Read the migration report in the job summary before approving.
"""

# The same template as DEPLOYS (title, two lines, Why, How to apply, three bullets), other facts.
SCREENSHOTS = """\
# Screenshots belong in the assets folder

Keep every screenshot for the docs site under one folder with a date prefix.
The docs build fails on images larger than two megabytes, so compress them first.

**Why:** the user spent an afternoon hunting stale images that nobody had cleaned up.

**How to apply:**
- Save new images as PNG in docs/assets with the capture date in the file name.
- Run the image optimiser script before committing anything larger than a megabyte.
- Delete the previous version of a screenshot when the page it shows changes.
"""

INVOICES = """\
# Invoices are sent on the first working day

Finance closes the month on the last Friday and the invoice run starts after it.
Customers on annual plans get one invoice in January and nothing monthly.

**Why:** two customers were billed twice in April when the run started early.

**How to apply:**
- Check the close calendar in the finance channel before starting the run.
- Skip annual customers unless the month is January.
- Post the run summary to the billing channel when it finishes.
"""


def mem(name: str, body: str, extra: str = "", kind: str = "feedback") -> str:
    return f"---\nname: {name}\ndescription: memory {name}\ntype: {kind}\n{extra}---\n{body}"


def index(*files: str) -> str:
    return "# Memory\n" + "".join(f"- [{f[:-3]}]({f}) — {f[:-3]}\n" for f in files)


def store_of(files: dict[str, str]) -> dict[str, str]:
    """files plus a root that lists every memory (so no other rule has anything to say)."""
    return {"MEMORY.md": index(*sorted(f for f in files if "/" not in f)), **files}


def dup_findings(findings, store, *extra):
    return sorted(f for f in findings(store, "--select", "MEM3", "--today", TODAY, *extra))


def messages(cli, store, *extra):
    result = cli("check", "--format", "json", "--select", "MEM3", "--today", TODAY, *extra, store)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return {(f["path"], f["line"], f["code"]): f["message"] for f in result.json()}


def write_config(store, text: str):
    (store / ".memlint.yaml").write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ MEM301


def test_mem301_same_body_despite_whitespace_case_and_markdown(make_store, cli):
    store = make_store(store_of({
        "feedback_deploys.md": mem("deploys", DEPLOYS),
        "feedback_staging.md": mem("staging", DEPLOYS_RETYPED, kind="project"),
    }))
    found = messages(cli, store)
    assert list(found) == [("feedback_staging.md", 1, "MEM301")]
    message = found["feedback_staging.md", 1, "MEM301"]
    assert "same body as feedback_deploys.md:1" in message
    assert "later in path order; no usable git dates" in message


def test_suppressing_mem301_as_its_doc_says_does_not_make_a_near_duplicate(make_store, cli):
    """The directive is memlint's, not the memory's: the two bodies are
    still the same to MEM301 (hidden on the copy) and not near to MEM302."""
    store = make_store(store_of({
        "feedback_deploys.md": mem("deploys", DEPLOYS),
        "feedback_staging.md": mem("staging", DEPLOYS_RETYPED + "\n<!-- memlint-disable-file MEM301 -->\n", kind="project"),
    }))
    assert list(messages(cli, store)) == []


def test_mem301_frontmatter_is_not_compared_and_blank_bodies_are_not_duplicates(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("a", "\n\n"),
        "b.md": mem("b", ""),
        "c.md": mem("c", "Deploys go through staging.\n"),
        "d.md": mem("c-again", "Deploys go through staging.\n", extra="created: 2026-01-01\n"),
    }))
    assert dup_findings(findings, store) == [("d.md", 1, "MEM301")]


def test_mem301_a_copy_retyped_with_curly_quotes_and_dashes_is_the_same_body(make_store, cli):
    """Too short for MEM302 (20 words), and not MEM301's before: nothing fired."""
    store = make_store(store_of({
        "a.md": mem("a", "Don't deploy on Fridays -- the on-call rota can't cover weekends.\n"),
        "b.md": mem("b", "Don’t deploy on Fridays — the on-call rota can’t cover weekends.\n"),
    }))
    assert list(messages(cli, store)) == [("b.md", 1, "MEM301")]


def test_mem301_a_number_starting_a_wrapped_line_is_a_fact_not_a_list_marker(make_store, cli):
    """``2026.`` on a paragraph's second line is text (only a ``1.`` list can
    interrupt a paragraph): bodies differing in it are different memories."""
    store = make_store(store_of({
        "a.md": mem("a", "The Pro plan price goes up in\n2026. Quote 59 EUR.\n"),
        "b.md": mem("b", "The Pro plan price goes up in\n2027. Quote 59 EUR.\n"),
    }))
    assert list(messages(cli, store)) == []


def test_mem301_stubs_under_min_words_are_not_compared(make_store, findings):
    store = make_store(store_of({"a.md": mem("a", "A fact.\n"), "b.md": mem("b", "a  FACT\n"), "c.md": mem("c", "TODO\n")}))
    assert dup_findings(findings, store) == []
    write_config(store, "rules:\n  duplicate-content: {min-words: 1}\n")
    assert dup_findings(findings, store) == [("b.md", 1, "MEM301")]


def test_mem301_three_copies_point_at_the_oldest(make_store, cli):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS),
        "b.md": mem("b", DEPLOYS_RETYPED),
        "c.md": mem("c", DEPLOYS.upper()),
    }))
    found = messages(cli, store)
    assert sorted(found) == [("b.md", 1, "MEM301"), ("c.md", 1, "MEM301")]
    assert "same body as a.md:1" in found["b.md", 1, "MEM301"] and "also the same: c.md" in found["b.md", 1, "MEM301"]
    assert "same body as a.md:1" in found["c.md", 1, "MEM301"] and "also the same: b.md" in found["c.md", 1, "MEM301"]


def test_a_big_group_of_copies_names_five_others_and_counts_the_rest(make_store, cli):
    # 2,000 copies of one template once made each message name 1,998 files (86 MB of JSON).
    store = make_store(store_of({f"m{k}.md": mem(f"pricing {k}", DEPLOYS if k % 2 else DEPLOYS.upper()) for k in range(9)}))
    found = messages(cli, store)
    assert sorted(found) == [(f"m{k}.md", 1, "MEM301") for k in range(1, 9)]
    assert "same body as m0.md:1 (whitespace, case and markdown aside); also the same: " \
           "m1.md, m2.md, m3.md, m4.md, m5.md and 2 more; this copy is the newer" in found["m8.md", 1, "MEM301"]
    assert "also the same: m2.md, m3.md, m4.md, m5.md, m6.md and 2 more;" in found["m1.md", 1, "MEM301"]
    assert "also the same: m1.md, m2.md, m3.md, m4.md, m5.md and 2 more;" in found["m6.md", 1, "MEM301"]


def test_a_group_of_seven_copies_names_every_other_one(make_store, cli):
    store = make_store(store_of({f"m{k}.md": mem(f"m{k}", DEPLOYS) for k in range(7)}))
    message = messages(cli, store)["m6.md", 1, "MEM301"]
    assert "also the same: m1.md, m2.md, m3.md, m4.md, m5.md;" in message and "more" not in message


# ------------------------------------------------------------------ MEM302


@pytest.mark.parametrize("copy", [DEPLOYS_EDITED, DEPLOYS_REORDERED], ids=["sentence-changed", "lines-reordered"])
def test_mem302_near_copy(make_store, cli, copy):
    store = make_store(store_of({"feedback_deploys.md": mem("deploys", DEPLOYS), "feedback_staging.md": mem("staging", copy)}))
    found = messages(cli, store)
    assert list(found) == [("feedback_staging.md", 1, "MEM302")]
    message = found["feedback_staging.md", 1, "MEM302"]
    assert message.startswith("near-duplicate of feedback_deploys.md:1 (similarity ")
    assert "threshold 0.4); this copy is the newer (later in path order; no usable git dates)" in message


def test_mem302_reports_the_similarity(make_store, cli):
    store = make_store(store_of({"a.md": mem("a", DEPLOYS), "b.md": mem("b", DEPLOYS_REORDERED)}))
    # Reordering lines leaves every line's shingles as they were.
    assert "(similarity 1.00, threshold 0.4)" in messages(cli, store)["b.md", 1, "MEM302"]


def test_same_template_different_facts_never_fire(make_store, findings):
    store = make_store(store_of({
        "feedback_deploys.md": mem("deploys", DEPLOYS),
        "feedback_screenshots.md": mem("screenshots", SCREENSHOTS),
        "project_invoices.md": mem("invoices", INVOICES, kind="project"),
    }))
    assert dup_findings(findings, store) == []


def test_mem302_one_finding_per_newer_file_naming_every_older(make_store, cli):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS),
        "b.md": mem("b", DEPLOYS_REORDERED.replace("fifteen minutes", "an hour")),
        "c.md": mem("c", DEPLOYS_EDITED),
    }))
    found = messages(cli, store)
    assert sorted(found) == [("b.md", 1, "MEM302"), ("c.md", 1, "MEM302")]
    message = found["c.md", 1, "MEM302"]
    assert message.startswith("near-duplicate of a.md:1 (similarity 0.")
    assert "; also of b.md:1 (0." in message


def test_mem302_in_a_cluster_names_the_five_most_similar_after_the_first_and_counts_the_rest(make_store, cli):
    # Each copy adds its own line: the more lines two copies share, the closer they are.
    extra = [f"- Server number {k} in the rack listens on port {9000 + k} for the canary checks.\n" for k in range(9)]
    files = {f"m{k}.md": mem(f"m{k}", DEPLOYS + "".join(extra[: k + 1])) for k in range(9)}
    found = messages(cli, make_store(store_of(files)))
    assert sorted(found) == [(f"m{k}.md", 1, "MEM302") for k in range(1, 9)]
    message = found["m8.md", 1, "MEM302"]
    assert message.startswith("near-duplicate of m7.md:1 (similarity 0.")
    also = message.split("; also of ")[1].split(";")[0]
    assert [part.split(":")[0] for part in also.split(" and ")[0].split(", ")] == ["m6.md", "m5.md", "m4.md", "m3.md", "m2.md"]
    assert also.endswith(" and 2 more")
    assert "and" not in found["m3.md", 1, "MEM302"].split("; also of ")[1].split(";")[0]


def test_mem302_threshold_and_min_words_options(make_store, findings):
    files = store_of({
        "a.md": mem("a", DEPLOYS),
        "b.md": mem("b", DEPLOYS_EDITED),
        "short1.md": mem("short1", "Deploys run through the staging pipeline every day.\n"),
        "short2.md": mem("short2", "Deploys run through the staging pipeline every night.\n"),
    })
    store = make_store(files)
    assert dup_findings(findings, store) == [("b.md", 1, "MEM302")]  # the short pair is under 20 words
    write_config(store, "rules:\n  near-duplicate: {threshold: 0.95}\n")
    assert dup_findings(findings, store) == []
    write_config(store, "rules:\n  MEM302: {min-words: 3, threshold: 0.5}\n")
    assert dup_findings(findings, store) == [("b.md", 1, "MEM302"), ("short2.md", 1, "MEM302")]


@pytest.mark.parametrize("rule, option", [
    ("near-duplicate", "threshold: 0"), ("near-duplicate", "threshold: 1.5"), ("near-duplicate", "threshold: high"),
    ("near-duplicate", "min-words: -1"), ("duplicate-content", "min-words: -1"), ("duplicate-name", "include-logs: yes please"),
    ("duplicate-content", "reports: reports/**"), ("duplicate-name", "threshold: 0.5"),
])
def test_bad_options_are_config_errors(make_store, cli, rule, option):
    store = make_store(store_of({"a.md": mem("a", DEPLOYS), "b.md": mem("b", DEPLOYS_EDITED)}))
    write_config(store, f"rules:\n  {rule}: {{{option}}}\n")
    result = cli("check", store)
    assert result.exit_code == 2
    assert f"rules.{rule}" in result.output + result.stderr


# ------------------------------------------------------------------ MEM303


def test_mem303_name_and_title_slugs(make_store, cli):
    store = make_store(store_of({
        "feedback_testing.md": mem("Testing rules", "Run the unit tests before pushing.\n"),
        "feedback_tests.md": mem("testing-rules", "Write a test for every bug fixed.\n"),
        "project_x.md": "---\ntitle: Project X\ndescription: x\ntype: project\n---\nX.\n",
        "project_y.md": "---\ndescription: y\ntype: project\nmetadata:\n  name: project-x\n---\nY.\n",
    }))
    found = messages(cli, store)
    assert sorted(found) == [("feedback_tests.md", 2, "MEM303"), ("project_y.md", 5, "MEM303")]
    assert found["feedback_tests.md", 2, "MEM303"].startswith(
        "`name: testing-rules` is the same name as feedback_testing.md:2 (`name: Testing rules`) once case, "
        "'-', '_' and spaces are ignored, so a `[[testingrules]]` link cannot tell them apart"
    )
    assert "as project_x.md:2 (`title: Project X`)" in found["project_y.md", 5, "MEM303"]


def test_mem303_names_a_link_that_really_is_ambiguous(make_store, cli):
    """A link spelled exactly as one of two names finds that memory (exact
    names first), so the message must not offer it as the ambiguous one;
    a name spelled the same twice is ambiguous as written."""
    store = make_store(store_of({
        "a.md": mem("Testing rules", "Run the unit tests before pushing.\n"),
        "b.md": mem("testing-rules", "Write a test for every bug fixed.\n"),
        "c.md": mem("pricing", "Pro costs 49 EUR.\n"),
        "d.md": mem("pricing", "Pro costs 59 EUR.\n"),
        "e.md": mem("user", "See [[testing-rules]] and [[Testing rules]], [[Deploy]] and [[DEPLOY]].\n"),
        "f.md": mem("Deploy", "Deploy on Tuesdays.\n"),
        "g.md": mem("deploy", "Deploys need a reviewer.\n"),
    }))
    found = messages(cli, store)
    assert "so a `[[testingrules]]` link cannot tell them apart" in found["b.md", 2, "MEM303"]
    assert "so `[[pricing]]` cannot tell them apart" in found["d.md", 2, "MEM303"]
    # the folded name is one of the spellings: another is offered
    assert "so a `[[DEPLOY]]` link cannot tell them apart" in found["g.md", 2, "MEM303"]
    graph = cli("graph", "--format", "json", store).json()["stores"][0]
    assert [(e["written"], e["target"]) for e in graph["edges"] if e["source"] == "e.md"][:3] == [
        ("testing-rules", "b.md"), ("Testing rules", "a.md"), ("Deploy", "f.md")]


def test_mem303_does_not_offer_a_link_that_finds_another_file_by_its_file_name(make_store, cli):
    """A file elsewhere named as the link is spelled (pricing.md, testing_rules.md)
    takes the link before any `name` does: the message says so instead of
    offering that link as one that reaches one of the two."""
    store = make_store(store_of({
        "a.md": mem("Testing rules", "Run the unit tests before pushing.\n"),
        "b.md": mem("testing-rules", "Write a test for every bug fixed.\n"),
        "testing_rules.md": mem("qa-checklist", "The checklist. See [[testingrules]].\n"),
        "c.md": mem("pricing", "Pro costs 49 EUR.\n"),
        "d.md": mem("pricing", "Pro costs 59 EUR.\n"),
        "pricing.md": mem("price-list", "The list. See [[pricing]].\n"),
    }))
    found = messages(cli, store)
    assert "so a `[[testingrules]]` link finds testing_rules.md instead and cannot tell them apart" \
        in found["b.md", 2, "MEM303"]
    assert "so `[[pricing]]` finds pricing.md instead and cannot tell them apart" in found["d.md", 2, "MEM303"]
    graph = cli("graph", "--format", "json", store).json()["stores"][0]
    assert sorted((e["written"], e["target"]) for e in graph["edges"] if e["source"] != "MEMORY.md") == [
        ("pricing", "pricing.md"), ("testingrules", "testing_rules.md")]


def test_mem303_offers_a_spelling_when_every_other_is_written(make_store, cli):
    """Eight memories writing every spelling it would offer (the underscore
    one too): the message offers one more, rather than the rule failing."""
    names = ["testingrules", "TESTINGRULES", "TESTING RULES", "testing rules", "Testing Rules", "tESTING RULES",
             "_testingrules", "Testing rules"]
    store = make_store(store_of({f"m{i}.md": mem(n, f"Fact {i}.\n") for i, n in enumerate(names, 1)}))
    found = messages(cli, store)
    assert not any(code == "MEM000" for _, _, code in found)
    assert "so a `[[__testingrules]]` link cannot tell them apart" in found["m8.md", 2, "MEM303"]


def test_mem303_quotes_a_block_scalar_name_without_its_newline(make_store, cli):
    store = make_store(store_of({
        "a.md": "---\nname: >\n  Testing rules\ndescription: a\ntype: feedback\n---\nOne.\n",
        "b.md": "---\nname: |\n  Testing rules\ndescription: b\ntype: feedback\n---\nTwo.\n",
    }))
    assert messages(cli, store)["b.md", 2, "MEM303"].startswith(
        "`name: Testing rules` is the same name as a.md:2 (`name: Testing rules`) once case, '-', '_' and spaces "
        "are ignored, so `[[Testing rules]]` cannot tell them apart")


def test_mem303_a_name_used_nine_times_names_five_others_and_counts_the_rest(make_store, cli):
    store = make_store(store_of({f"m{k}.md": mem("pricing", f"Fact number {k}.\n") for k in range(9)}))
    found = messages(cli, store)
    assert sorted(found) == [(f"m{k}.md", 2, "MEM303") for k in range(1, 9)]
    assert "as m0.md:2 (`name: pricing`) and m1.md, m2.md, m3.md, m4.md, m5.md and 2 more once case" \
        in found["m8.md", 2, "MEM303"]


def test_mem303_quiet_for_distinct_names_and_one_file_with_name_and_title(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("alpha", "One.\n", extra="title: Alpha\n"),
        "b.md": mem("beta", "Two.\n"),
        "c.md": mem("!!!", "Three.\n"),  # no slug at all
        "d.md": mem("???", "Four.\n"),
    }))
    assert dup_findings(findings, store) == []


def test_mem303_counts_retired_memories(make_store, findings):
    # `[[pricing]]` may still resolve to the retired one.
    store = make_store(store_of({
        "a.md": mem("pricing", "Pro costs 49 EUR.\n", extra="status: outdated\n"),
        "b.md": mem("pricing", "Pro costs 59 EUR.\n"),
    }))
    assert dup_findings(findings, store) == [("b.md", 2, "MEM303")]


# ------------------------------------------------------------------ newer file


def test_the_newer_file_by_git_date_carries_the_finding(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", index("a_original.md", "z_original.md"))
    repo.write("z_original.md", mem("z-original", DEPLOYS))
    repo.write("z_named.md", mem("shared-name", "One.\n"))
    repo.commit("first", date="2026-01-05T10:00:00+00:00")
    repo.write("a_copy.md", mem("a-copy", DEPLOYS_EDITED))
    repo.write("a_named.md", mem("shared-name", "Two.\n"))
    repo.write("MEMORY.md", index("a_copy.md", "a_original.md", "z_original.md"))
    repo.commit("second", date="2026-03-01T10:00:00+00:00")
    # Not committed at all: the newest, whatever its path.
    repo.write("0_exact.md", mem("exact", INVOICES.upper()), add=False)
    repo.write("a_exact.md", mem("exact-2", INVOICES))
    repo.commit("third", date="2026-04-01T10:00:00+00:00")

    found = messages(cli, repo.root)
    assert sorted(found) == [("0_exact.md", 1, "MEM301"), ("a_copy.md", 1, "MEM302"), ("a_named.md", 2, "MEM303")]
    assert "near-duplicate of z_original.md:1" in found["a_copy.md", 1, "MEM302"]
    assert "git added it 2026-03-01, the other 2026-01-05" in found["a_copy.md", 1, "MEM302"]
    assert "same name as z_named.md:2" in found["a_named.md", 2, "MEM303"]
    assert "same body as a_exact.md:1" in found["0_exact.md", 1, "MEM301"]
    assert "(not committed yet)" in found["0_exact.md", 1, "MEM301"]


def test_same_day_commits_are_ordered_by_time(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", index("b.md"))
    repo.write("b.md", mem("b", DEPLOYS))
    repo.commit("morning", date="2026-03-01T08:00:00+00:00")
    repo.write("a.md", mem("a", DEPLOYS_EDITED))
    repo.commit("evening", date="2026-03-01T20:00:00+00:00")
    found = messages(cli, repo.root)
    assert list(found) == [("a.md", 1, "MEM302")]
    assert "git added it 2026-03-01 20:00, the other 2026-03-01 08:00" in found["a.md", 1, "MEM302"]


@pytest.mark.parametrize("rule", ["MEM301", "MEM302", "MEM303"])
def test_commits_in_the_same_second_are_ordered_by_git(tmp_path, cli, rule):
    # An agent committing each memory as it writes it: z.md came first, though a.md sorts first.
    body = {"MEM301": DEPLOYS.upper(), "MEM302": DEPLOYS_EDITED, "MEM303": SCREENSHOTS}[rule]
    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", index("z.md"))
    repo.write("z.md", mem("zed", DEPLOYS))
    repo.commit("first", date="2026-03-01T08:00:00+00:00")
    repo.write("a.md", mem("zed" if rule == "MEM303" else "aye", body))
    repo.write("MEMORY.md", index("a.md", "z.md"))
    repo.commit("second", date="2026-03-01T08:00:00+00:00")
    found = messages(cli, repo.root)
    assert [key for key in found if key[2] == rule] == [("a.md", 2 if rule == "MEM303" else 1, rule)]
    assert "(both added 2026-03-01 08:00, this one in a later commit)" in found[[k for k in found if k[2] == rule][0]]


def test_without_git_the_later_path_is_the_newer(make_store, findings):
    store = make_store(store_of({"b.md": mem("b", DEPLOYS), "a.md": mem("a", DEPLOYS_EDITED)}))
    assert dup_findings(findings, store) == [("b.md", 1, "MEM302")]


# ------------------------------------------------------------------ logs and reports


def openclaw_store(make_store):
    briefing = "# Morning briefing\n\n" + SCREENSHOTS
    return make_store({
        "MEMORY.md": "# Memory\n- `memory/2026-03-01.md`\n",
        "memory/2026-03-01.md": briefing,
        "memory/2026-03-02.md": briefing,
        "memory/2026-03-03.md": "# Log\n\n" + DEPLOYS,
        "memory/2026-03-04-deploys.md": "# Log\n\n" + DEPLOYS_EDITED,
        "reports/weekly.md": "---\ntitle: Weekly\n---\n" + INVOICES,
        "memory/job-report-2026-03-05.md": "---\ntitle: Weekly\n---\n" + INVOICES.replace("April", "May"),
        "feedback_always-report-errors.md": "---\ntitle: Weekly\n---\n" + INVOICES,  # a memory, not a report
    })


def test_logs_and_reports_are_not_compared_by_default(make_store, findings):
    assert dup_findings(findings, openclaw_store(make_store)) == []


@pytest.mark.parametrize("cached", [True, False], ids=["cache", "no cache"])
@pytest.mark.parametrize("include_logs", [False, True], ids=["memories", "logs too"])
def test_only_the_bodies_the_rules_compare_are_fingerprinted(make_store, findings, monkeypatch, cached, include_logs):
    """A check fingerprints the memories it compares, while it reads the
    files (with the cache) or when a rule asks: not the root, nor daily logs
    and reports unless ``include-logs``. An OpenClaw store is mostly daily
    logs, whose fingerprints were a quarter of its first run."""
    store = openclaw_store(make_store)
    if include_logs:
        write_config(store, "rules:\n" + "".join(f"  {r}: {{include-logs: true}}\n" for r in ("MEM301", "MEM302")))
    bodies = []
    real = fingerprint_module.fingerprint
    monkeypatch.setattr(fingerprint_module, "fingerprint", lambda body: bodies.append(body) or real(body))
    found = dup_findings(findings, store, *(() if cached else ("--no-cache",)))
    compared = ["feedback_always-report-errors.md"]
    if include_logs:
        compared += ["memory/2026-03-01.md", "memory/2026-03-02.md", "memory/2026-03-03.md",
                     "memory/2026-03-04-deploys.md", "memory/job-report-2026-03-05.md", "reports/weekly.md"]
    assert sorted(bodies) == sorted((store / rel).read_text().split("---\n")[-1] for rel in compared)
    assert bool(found) == include_logs


def test_include_logs_compares_logs_and_reports(make_store, findings):
    store = openclaw_store(make_store)
    write_config(store, "rules:\n" + "".join(f"  {r}: {{include-logs: true}}\n" for r in ("MEM301", "MEM302", "MEM303")))
    assert dup_findings(findings, store) == [
        ("memory/2026-03-02.md", 1, "MEM301"),
        ("memory/2026-03-04-deploys.md", 1, "MEM302"),
        ("memory/job-report-2026-03-05.md", 1, "MEM302"),
        ("memory/job-report-2026-03-05.md", 2, "MEM303"),
        ("reports/weekly.md", 1, "MEM301"),  # the same as the older memory feedback_always-report-errors.md
        ("reports/weekly.md", 1, "MEM302"),  # and near job-report's copy
        ("reports/weekly.md", 2, "MEM303"),
    ]


def test_reports_option_names_the_generated_files(make_store, findings):
    store = openclaw_store(make_store)
    write_config(store, "rules:\n  duplicate-content: {reports: []}\n  duplicate-name: {reports: ['**/*-errors.md']}\n")
    # No reports for MEM301: reports/weekly.md is a memory. For MEM303 only the
    # -errors memory is a report, so the two report files share a title.
    assert dup_findings(findings, store) == [("reports/weekly.md", 1, "MEM301"), ("reports/weekly.md", 2, "MEM303")]


# ------------------------------------------------------------------ lifecycle


def test_a_memory_and_what_it_supersedes_are_expected_copies(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS, extra="status: active\n"),  # still live: MEM503's business, not a duplicate
        "b.md": mem("b", DEPLOYS_EDITED, extra="supersedes: a\n"),
        "c.md": mem("c", INVOICES, extra="superseded_by: d\nstatus: active\n"),
        "d.md": mem("d", INVOICES.upper()),
    }))
    assert dup_findings(findings, store) == []


def test_supersession_through_a_chain(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS, extra="status: active\n"),
        "b.md": mem("b", SCREENSHOTS, extra="supersedes: a\n"),
        "c.md": mem("c", DEPLOYS_EDITED, extra="supersedes: b\n"),
    }))
    assert dup_findings(findings, store) == []


def test_in_a_big_group_of_copies_each_skips_only_the_copies_on_its_own_chain(make_store, cli):
    # Each copy's exemptions are found once (a walk each way along its chain), not by asking
    # of every other member of the group: a template copied thousands of times made that quadratic.
    extra = {1: "supersedes: m0\n", 2: "supersedes: m1\n", 3: "superseded_by: m4\n"}
    store = make_store(store_of({f"m{k}.md": mem(f"m{k}", DEPLOYS, extra=extra.get(k, "")) for k in range(9)}))
    found = {key: message for key, message in messages(cli, store).items() if key[2] == "MEM301"}
    assert sorted(found) == [(f"m{k}.md", 1, "MEM301") for k in range(3, 9)]  # m1, m2: every older copy is on their chain
    for k in (3, 4):
        assert "same body as m0.md:1 (whitespace, case and markdown aside); also the same: " \
               "m1.md, m2.md, m5.md, m6.md, m7.md and 1 more;" in found[f"m{k}.md", 1, "MEM301"]
    assert "also the same: m1.md, m2.md, m3.md, m4.md, m6.md and 2 more;" in found["m5.md", 1, "MEM301"]


def test_retired_memories_are_not_compared_unless_configured(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS, extra="status: outdated\n"),
        "b.md": mem("b", DEPLOYS_EDITED),
        "c.md": mem("c", INVOICES, extra="status: archived\n"),
        "d.md": mem("d", INVOICES.lower()),
    }))
    assert dup_findings(findings, store) == []
    write_config(store, "retired-exempt-rules: []\n")
    assert dup_findings(findings, store) == [("b.md", 1, "MEM302"), ("d.md", 1, "MEM301")]


# ------------------------------------------------------------------ the store


def test_fingerprints_are_computed_once_per_store_for_both_rules(make_store, monkeypatch):
    store_dir = make_store(store_of({"a.md": mem("a", DEPLOYS), "b.md": mem("b", DEPLOYS_EDITED), "c.md": mem("c", DEPLOYS)}))
    calls = []
    real = fingerprint_module.fingerprint
    monkeypatch.setattr(fingerprint_module, "fingerprint", lambda body: calls.append(body) or real(body))
    [store] = load_stores(store_dir, config.load(start=store_dir))
    result = lint_store(store, Selection(select=("MEM301", "MEM302")))
    # c.md is a's copy and near b.md (newer than both)
    assert [(f.path, f.code) for f in result.findings] == [("b.md", "MEM302"), ("c.md", "MEM301"), ("c.md", "MEM302")]
    assert len(calls) == 3  # the three memories; not the root, not once per rule
    assert store.fingerprints["a.md"] is store.fingerprints["a.md"]
    with pytest.raises(KeyError):  # the root is no memory
        store.fingerprints["MEMORY.md"]
    assert set(store.fingerprints) == {"a.md", "b.md", "c.md"} and len(store.fingerprints) == 3
    assert "a.md" in store.fingerprints and "MEMORY.md" not in store.fingerprints
    assert len(calls) == 3  # asking what it holds makes none


def test_sample_clean_store_is_quiet_even_with_logs(tmp_path, findings):
    copy = tmp_path / "clean"
    shutil.copytree(TESTDATA / "clean", copy)
    write_config(copy, "rules:\n" + "".join(f"  {r}: {{include-logs: true}}\n" for r in ("MEM301", "MEM302", "MEM303")))
    assert dup_findings(findings, copy) == []


def test_readme_lists_the_duplicate_rules():
    readme = (TESTDATA.parent / "README.md").read_text(encoding="utf-8")
    for row in ("| MEM301 | duplicate-content | warning |", "| MEM302 | near-duplicate | warning |", "| MEM303 | duplicate-name | warning |"):
        assert row in readme


@pytest.mark.parametrize("path", [
    "reports/weekly.md", "a/reports/x/y.md", "reports", "job-report-2026-03-05.md", "a/dream_report_1.md",
    "build-report.md", "x/eod_report.md", "feedback_always-report-errors.md", "report.md", "reportsx/a.md", "a/b.md",
])
def test_report_matcher_agrees_with_config_globs(path):
    from memlint.config import glob_match
    from memlint.rules._duplicates import REPORTS, glob_matcher

    for patterns in (REPORTS, ["reports/**"], ["**/*.md"], ["*-report.md", "a/**"], []):
        assert glob_matcher(patterns)(path) == glob_match(path, patterns), (path, patterns)


def test_disable_file_in_the_newer_copy_silences_it(make_store, findings):
    store = make_store(store_of({
        "a.md": mem("a", DEPLOYS),
        "b.md": mem("b", DEPLOYS_EDITED + "\n<!-- memlint-disable-file near-duplicate -->\n"),
    }))
    assert dup_findings(findings, store) == []
