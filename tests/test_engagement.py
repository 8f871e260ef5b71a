"""Tests for memlint.sessions (collect + index) and memlint.engagement."""
from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from memlint.engagement import (
    HEALTH_WINDOW_DAYS,
    MIN_WEIGHT,
    TRIAGE_WINDOW_DAYS,
    Engagement,
    actionability,
    engagement,
    hot_class,
    hotness,
    idf,
    keywords,
    triage,
)
from memlint.sessions import (
    Session,
    SessionIndex,
    sessions_from_dir,
    sessions_from_git,
    sessions_from_logs,
)

TODAY = date(2026, 3, 31)


def ago(days: int) -> date:
    return TODAY - timedelta(days=days)


# --------------------------------------------------------------------------
# keywords
# --------------------------------------------------------------------------


class TestKeywords:
    def test_type_prefix_stopwords_short_tokens(self):
        assert keywords("memory/feedback_mistakes-to-avoid.md", None, []) == ["mistakes", "avoid"]

    def test_all_type_prefixes(self):
        for prefix in ("feedback", "project", "reference", "user"):
            assert keywords(f"{prefix}_gradle-caching.md", None, []) == ["gradle", "caching"]

    def test_type_word_kept_when_not_leading(self):
        assert keywords("deploy-project.md", None, []) == ["deploy", "project"]

    def test_dates_and_numbers_dropped(self):
        assert keywords("memory/2026-03-01-release-plan.md", None, []) == ["release", "plan"]
        assert keywords("20260301_release_2024.md", None, []) == ["release"]

    def test_camel_case_kept_whole_and_split(self):
        assert keywords("ironClawInfra.md", None, []) == ["ironclawinfra", "iron", "claw", "infra"]
        assert keywords("HTTPServer.md", None, []) == ["httpserver", "http", "server"]

    def test_dots_extension_and_folders(self):
        # folders are not keywords; only the last extension is dropped
        assert keywords("deep/nested/synthesis.cli.md", None, []) == ["synthesis", "cli"]
        assert keywords("windows\\dir\\lib-pcb.md", None, []) == ["lib", "pcb"]

    def test_title_and_tags(self):
        kws = keywords(
            "memory/ironclaw.md",
            "IronClaw infrastructure notes",
            ["Deployment", "machine-learning", "k8s", "CI", "ironclaw", None],
        )
        # a tag of two letters is a keyword too (IDF weighs it down if it is in every session)
        assert kws == ["ironclaw", "iron", "claw", "infrastructure", "deployment", "machine learning", "k8s", "ci"]

    def test_a_two_letter_tool_named_alone_is_a_keyword(self):
        """`jq.md`, `title: gh`: the name is the only word there is; in a
        longer name or title a two-letter word is dropped as before."""
        assert keywords("tools/jq.md", "jq", ["jq"]) == ["jq"]
        assert keywords("tools/cli.md", "gh", []) == ["cli", "gh"]
        assert keywords("tools/use-gh-for-prs.md", "Use gh for PRs", []) == ["prs"]  # "use" is a stop word
        # but not a pronoun, which every session says: a tag `it` would make the memory hot in all of them
        assert keywords("us.md", None, ["it", "io"]) == ["io"]

    def test_two_character_words_of_chinese_and_korean_are_keywords(self):
        """部署 (deploy), 서버 (server): two characters make a word there, as three do in English."""
        assert keywords("memory/部署-失败.md", "部署 失败", []) == ["部署", "失败"]
        assert keywords("memory/배포-절차.md", "서버 배포 절차", []) == ["배포", "절차", "서버"]
        assert keywords("tools/use-gh-for-prs.md", "Use gh for PRs", []) == ["prs"]

    def test_the_rule_words_of_feedback_names_are_no_topic(self):
        """`feedback_always-x`, `feedback_never-y`: a store full of them would
        match every session that says "always" to each of them (a real store's
        triage showed a session of another file's as this one's last)."""
        assert keywords("feedback_always-give-preview-url.md", None, []) == ["give", "preview", "url"]
        assert keywords("feedback_never-push-to-main.md", "Never push to main", []) == ["push", "main"]

    def test_multiword_tag_needs_a_real_word(self):
        assert keywords("x.md", None, ["CI/CD", "a b"]) == []

    def test_lowercase_dedupe(self):
        assert keywords("Gradle-gradle.md", "GRADLE Caching", ["caching"]) == ["gradle", "caching"]

    def test_unicode(self):
        assert keywords("Ünïcode-straße.md", None, []) == ["ünïcode", "straße"]

    def test_generic_store_words(self):
        assert keywords("MEMORY.md", None, []) == []
        assert keywords("synthesis-notes.md", None, []) == ["synthesis"]


# --------------------------------------------------------------------------
# idf
# --------------------------------------------------------------------------


class TestIdf:
    def test_rare_is_full_weight(self):
        assert idf(1, 3000) == 1.0
        assert idf(150, 3000) == 1.0  # 5%

    def test_common_is_zero(self):
        assert idf(1500, 3000) == 0.0
        assert idf(2900, 3000) == 0.0
        assert idf(3000, 3000) == 0.0

    def test_in_between_monotonic(self):
        ws = [idf(df, 1000) for df in range(1, 1001, 7)]
        assert all(a >= b for a, b in zip(ws, ws[1:]))
        assert idf(158, 1000) == pytest.approx(0.5, abs=0.01)
        assert idf(400, 1000) == pytest.approx(0.097, abs=0.005)
        assert idf(400, 1000) < MIN_WEIGHT < idf(350, 1000)

    def test_unseen_term(self):
        assert idf(0, 100) == 1.0
        assert idf(0, 0) == 1.0

    def test_small_corpus_not_penalised_as_common(self):
        # 3 sessions: fractions are taken over at least 20
        assert idf(1, 3) == 1.0
        assert idf(3, 3) == pytest.approx(0.523, abs=0.01)
        assert idf(5, 3) >= 0.0  # df > n is tolerated


# --------------------------------------------------------------------------
# hotness / hot_class
# --------------------------------------------------------------------------


class TestHotness:
    def test_formula(self):
        assert hotness(5, 10, 30) == pytest.approx(0.6 * 0.5 + 0.4 * 0.5)
        assert hotness(10, 10, 0) == pytest.approx(1.0)
        assert hotness(0, 10, 60) == 0.0
        assert hotness(0, 10, 600) == 0.0

    def test_no_hits_anywhere(self):
        assert hotness(0, 0, 0) == pytest.approx(0.4)
        assert hotness(3, 0, 30) == pytest.approx(0.2)

    def test_clamped(self):
        assert hotness(20, 10, -5) == pytest.approx(1.0)

    def test_classes(self):
        assert hot_class(0.6) == "HOT"
        assert hot_class(0.95) == "HOT"
        assert hot_class(0.5999) == "WARM"
        assert hot_class(0.3) == "WARM"
        assert hot_class(0.2999) == "COLD"
        assert hot_class(0.0) == "COLD"


# --------------------------------------------------------------------------
# triage
# --------------------------------------------------------------------------


class TestTriage:
    @pytest.mark.parametrize(
        "days,expected",
        [(0, 1.0), (7, 1.0), (8, 0.7), (14, 0.7), (15, 0.4), (30, 0.4), (31, 0.1), (400, 0.1), (None, 0.1)],
    )
    def test_recency(self, days, expected):
        assert triage(days, 0, "", 0, 10).recency == expected

    @pytest.mark.parametrize("n,expected", [(0, 0.0), (1, 1 / 3), (2, 2 / 3), (3, 1.0), (50, 1.0)])
    def test_recurrence(self, n, expected):
        assert triage(1, n, "", 0, 10).recurrence == pytest.approx(expected)

    def test_actionability(self):
        assert actionability("Some history of the project.") == 0.0
        assert actionability("Always run tests.") == pytest.approx(1 / 3)
        assert actionability("ALWAYS always Always") == pytest.approx(1 / 3)  # distinct words
        assert actionability("Never push. You must rebase.") == pytest.approx(2 / 3)
        assert actionability("Use X instead\n of Y. Critical: before merge.") == 1.0
        assert actionability("nevertheless mustard forever instead") == 0.0  # whole words only
        late = "\n" * 50 + "always never must"
        assert actionability(late) == 0.0  # only the first 50 lines

    def test_staleness(self):
        assert triage(1, 1, "", 30, 10).staleness == pytest.approx(0.5)
        assert triage(1, 1, "", 90, 10).staleness == 1.0

    def test_score(self):
        t = triage(10, 2, "always never", 15, 10)
        assert t.score == pytest.approx(0.30 * 0.7 + 0.25 * (2 / 3) + 0.25 * (2 / 3) + 0.20 * 0.75)

    def test_recommendations_and_precedence(self):
        assert triage(None, 0, "", 55, 10).recommendation == "ARCHIVE"
        # ARCHIVE wins over PRUNE
        assert triage(None, 0, "", 55, 500).recommendation == "ARCHIVE"
        # staleness exactly 0.8 (48 days) is not > 0.8
        assert triage(None, 0, "", 48, 10).recommendation == "KEEP"
        assert triage(None, 0, "", 49, 10).recommendation == "ARCHIVE"
        assert triage(3, 1, "", 5, 301).recommendation == "PRUNE"
        assert triage(3, 1, "", 5, 300).recommendation == "KEEP"
        assert triage(3, 2, "", 5, 301).recommendation == "KEEP"  # recurrence 0.67
        # PRUNE wins over UPDATE? (recurrence < 0.4 and > 0.6 exclude each other)
        assert triage(45, 3, "", 5, 10).recommendation == "UPDATE"
        assert triage(45, 2, "", 5, 10).recommendation == "UPDATE"
        assert triage(45, 1, "", 5, 10).recommendation == "KEEP"
        # last session 20 days ago: recency 0.4 is not < 0.4
        assert triage(20, 3, "", 5, 10).recommendation == "KEEP"
        assert triage(2, 3, "", 5, 10).recommendation == "KEEP"


# --------------------------------------------------------------------------
# SessionIndex
# --------------------------------------------------------------------------


def _s(i: int, text: str, days_ago: int = 0) -> Session:
    return Session(id=f"log:memory/s{i}.md", when=ago(days_ago), text=text)


class TestSessionIndex:
    def test_incremental(self, tmp_path):
        db = tmp_path / "memlint" / "sessions.db"
        sessions = [_s(i, f"session {i} about gradle", i) for i in range(5)]
        idx = SessionIndex(db)
        assert idx.update(sessions) == 5
        assert idx.update(sessions) == 0
        more = sessions + [_s(5, "new one"), _s(6, "another")]
        assert idx.update(more) == 2
        assert idx.count() == 7
        idx.close()
        # persisted: a new instance sees everything and indexes nothing
        with SessionIndex(db) as again:
            assert again.count() == 7
            assert again.update(more) == 0
            assert not again.rebuilt

    def test_changed_content_reindexed(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([_s(1, "talks about gradle", 3)])
            assert idx.document_frequency("gradle") == 1
            assert idx.update([_s(1, "talks about maven", 3)]) == 1
            assert idx.document_frequency("gradle") == 0
            assert idx.document_frequency("maven") == 1
            # same text, new date -> reindexed too
            assert idx.update([_s(1, "talks about maven", 1)]) == 1
            assert idx.hits("maven") == [("log:memory/s1.md", ago(1))]
            assert idx.count() == 1

    def test_duplicate_ids_in_one_batch(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            assert idx.update([_s(1, "a text"), _s(1, "a text")]) == 1
            assert idx.count() == 1

    def test_count_since_and_hits(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([_s(i, "ironclaw deploy" if i % 2 else "other", i * 10) for i in range(6)])
            assert idx.count() == 6
            assert idx.count(since=ago(25)) == 3
            assert idx.document_frequency("ironclaw") == 3
            assert idx.hits("ironclaw") == [
                ("log:memory/s1.md", ago(10)),
                ("log:memory/s3.md", ago(30)),
                ("log:memory/s5.md", ago(50)),
            ]
            assert idx.hits("IronClaw", since=ago(30)) == [
                ("log:memory/s1.md", ago(10)),
                ("log:memory/s3.md", ago(30)),
            ]

    def test_another_connections_sessions_are_seen(self, tmp_path):
        """Counts and hits are kept between lookups, yet a session another
        process indexes meanwhile (a second memlint run) is counted; inside
        ``pinned`` (one health run scoring every file) it waits for the end."""
        db = tmp_path / "s.db"
        with SessionIndex(db) as idx, SessionIndex(db) as other:
            idx.update([_s(1, "ironclaw deploy", 1)])
            assert (idx.count(), idx.document_frequency("ironclaw"), len(idx.hits("ironclaw"))) == (1, 1, 1)
            with idx.pinned():
                other.update([_s(1, "ironclaw deploy", 1), _s(2, "ironclaw again", 2)])
                assert (idx.count(), idx.document_frequency("ironclaw")) == (1, 1)
            assert (idx.count(), idx.document_frequency("ironclaw")) == (2, 2)
            assert idx.hits("ironclaw") == [("log:memory/s1.md", ago(1)), ("log:memory/s2.md", ago(2))]
            idx.prune({"log:memory/s2.md"})  # its own change: seen even when pinned
            with idx.pinned():
                assert (idx.count(), idx.hits("ironclaw")) == (1, [("log:memory/s2.md", ago(2))])

    def test_phrases_stemming_and_tokenizer(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([
                _s(1, "Use rebase instead of merge."),
                _s(2, "of course, instead we merged"),
                _s(3, "Edited memory/java-refactoring.md and feedback_mistakes_to_avoid.md"),
                _s(4, "One mistake: the Café was closed"),
                _s(5, "We talked about Machine-Learning pipelines"),
            ])
            assert idx.document_frequency("instead of") == 1
            assert idx.document_frequency("of instead") == 0
            assert idx.document_frequency("instead") == 2
            assert idx.document_frequency("refactoring") == 1  # split on - / .
            assert idx.document_frequency("avoid") == 1  # split on _
            assert idx.document_frequency("mistakes") == 2  # porter: mistake(s)
            assert idx.document_frequency("cafe") == 1  # diacritics folded
            assert idx.document_frequency("machine learning") == 1

    def test_words_of_scripts_written_without_spaces_are_found(self, tmp_path):
        # Chinese runs on without spaces, Korean glues particles on: "部署" is in
        # "今天部署流程出错了", "버전" in "버전을", as an agent's log writes them.
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([_s(1, "今天部署流程出错了。"), _s(2, "changelog 버전을 올렸다"), _s(3, "部门 署名"),
                        _s(4, "학교에 가서 버스를 탔다")])
            assert idx.document_frequency("部署") == 1  # adjacent, in order: not 部门 署名
            assert idx.document_frequency("部署流程") == 1
            assert idx.document_frequency("버전") == 1
            assert idx.document_frequency("流程部署") == 0
            assert idx.document_frequency("서버") == 0  # Korean is written in words: not 가서 버스's syllables

    @pytest.mark.parametrize(
        "term", ['foo"bar', "---", "", "   ", "AND", "NEAR(", "*", "a OR b", "col:x", "^x", "(", "'"]
    )
    def test_hostile_terms_do_not_crash(self, tmp_path, term):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([_s(1, 'some AND text OR "foo bar" * col x')])
            assert isinstance(idx.document_frequency(term), int)
            assert isinstance(idx.hits(term), list)
        # literal words are matched as words, not operators
        with SessionIndex(tmp_path / "s.db") as idx:
            assert idx.document_frequency("and") == 1
            assert idx.document_frequency("or") == 1

    def test_corrupt_db_rebuilt(self, tmp_path):
        db = tmp_path / "sessions.db"
        db.write_bytes(b"this is not a database at all\x00\xff" * 200)
        (tmp_path / "sessions.db-wal").write_bytes(b"junk")
        idx = SessionIndex(db)
        assert idx.rebuilt
        assert idx.count() == 0
        assert idx.update([_s(1, "hello world")]) == 1
        assert idx.document_frequency("hello") == 1
        idx.close()
        with SessionIndex(db) as again:
            assert not again.rebuilt
            assert again.count() == 1

    def test_truncated_db_rebuilt(self, tmp_path):
        db = tmp_path / "sessions.db"
        with SessionIndex(db) as idx:
            idx.update([_s(i, f"text {i} " * 200) for i in range(50)])
        data = db.read_bytes()
        db.write_bytes(data[:100] + b"\xde\xad" * 3000)  # valid header, garbage pages
        for extra in ("-wal", "-shm"):
            Path(str(db) + extra).unlink(missing_ok=True)
        with SessionIndex(db) as idx:
            assert idx.rebuilt
            assert idx.update([_s(1, "fresh")]) == 1

    def test_damaged_pages_rebuilt(self, tmp_path):
        db = tmp_path / "sessions.db"
        with SessionIndex(db) as idx:
            idx.update([_s(i, f"text {i} " * 300) for i in range(100)])
            idx._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(db.read_bytes())
        assert len(data) > 40_000
        mid = len(data) // 2
        data[mid : mid + 8192] = b"\x55" * 8192  # header and schema intact
        db.write_bytes(bytes(data))
        with SessionIndex(db) as idx:
            assert idx.rebuilt
            assert idx.count() == 0

    def test_damaged_full_text_index_rebuilt(self, tmp_path):
        """quick_check passes over FTS5's own records: their damage shows at
        the first query, which opening the index now makes."""
        db = tmp_path / "sessions.db"
        with SessionIndex(db) as idx:
            idx.update([_s(i, f"text {i}") for i in range(10)])
            idx._conn.execute("DELETE FROM fts_data")
        with SessionIndex(db) as idx:
            assert idx.rebuilt and idx.count() == 0
            assert idx.update([_s(1, "hello world")]) == 1 and idx.document_frequency("hello") == 1

    def test_foreign_db_rebuilt(self, tmp_path):
        db = tmp_path / "sessions.db"
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE sessions (x)")
        conn.execute("PRAGMA user_version = 99")
        conn.commit()
        conn.close()
        with SessionIndex(db) as idx:
            assert idx.rebuilt
            assert idx.update([_s(1, "hello")]) == 1

    def test_older_schema_version_rebuilt(self, tmp_path):
        db = tmp_path / "sessions.db"
        with SessionIndex(db) as idx:
            idx.update([_s(1, "hello")])
            idx._conn.execute("PRAGMA user_version = 0")
        with SessionIndex(db) as idx:
            assert idx.rebuilt
            assert idx.count() == 0

    def test_locked_db_is_not_discarded(self, tmp_path):
        db = tmp_path / "sessions.db"
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("CREATE TABLE precious (x)")
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(sqlite3.OperationalError):
                SessionIndex(db, busy_timeout=0.05)
        finally:
            other.execute("ROLLBACK")
        assert other.execute("SELECT name FROM sqlite_master").fetchall() == [("precious",)]
        other.close()

    def test_empty_file_is_fine(self, tmp_path):
        db = tmp_path / "sessions.db"
        db.write_bytes(b"")
        with SessionIndex(db) as idx:
            assert idx.update([_s(1, "x y z")]) == 1

    def test_two_instances_see_each_others_updates(self, tmp_path):
        db = tmp_path / "sessions.db"
        with SessionIndex(db) as a, SessionIndex(db) as b:
            a.update([_s(1, "gradle")])
            assert b.document_frequency("gradle") == 1  # cached in b ...
            a.update([_s(2, "gradle again")])
            assert b.document_frequency("gradle") == 2  # ... and invalidated

    def test_prune(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([_s(i, "gradle") for i in range(4)])
            assert idx.prune(["log:memory/s0.md", "log:memory/s2.md"]) == 2
            assert idx.count() == 2
            assert idx.document_frequency("gradle") == 2


# --------------------------------------------------------------------------
# collectors
# --------------------------------------------------------------------------

TRANSCRIPT = [
    {"type": "summary", "summary": "Gradle cache fix", "leafUuid": "x"},
    {
        "type": "user",
        "message": {"role": "user", "content": "Why is the gradle build cache missing?"},
        "timestamp": "2026-03-01T10:00:00Z",
        "sessionId": "abc",
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "secretthought"},
                {"type": "text", "text": "Let me look at the ironclaw settings."},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Read",
                    "input": {"file_path": "/repo/memory/feedback_gradle-caching.md"},
                },
            ],
        },
        "timestamp": "2026-03-01T10:00:05Z",
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "toolresultpayload"}],
        },
        "timestamp": "2026-03-01T10:00:06Z",
    },
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Use --build-cache instead of clean."}]},
        "timestamp": "2026-03-01T10:01:00Z",
    },
]


def _write_transcript(path: Path, records, broken: bool = True) -> None:
    lines = [json.dumps(r) for r in records]
    if broken:
        lines.insert(2, '{"type": "user", "message": {"role": "us')  # truncated write
        lines.append("not json at all")
        lines.append("[1, 2, 3]")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class TestCollectors:
    def test_jsonl_transcript(self, tmp_path):
        d = tmp_path / "sessions"
        d.mkdir()
        _write_transcript(d / "abc.jsonl", TRANSCRIPT)
        (sess,) = list(sessions_from_dir(d))
        assert sess.id == "file:abc.jsonl"
        expected_day = datetime.fromisoformat("2026-03-01T10:00:00+00:00").astimezone().date()
        assert sess.when == expected_day
        assert "gradle build cache" in sess.text
        assert "ironclaw settings" in sess.text
        assert "Read" in sess.text and "feedback_gradle-caching.md" in sess.text
        assert "instead of clean" in sess.text
        assert "toolresultpayload" not in sess.text
        assert "secretthought" not in sess.text
        assert "Gradle cache fix" not in sess.text  # summaries are not conversation

    @pytest.mark.parametrize(
        "stamp,utc",
        [
            ("2026-03-01T10:00:00Z", "2026-03-01T10:00:00+00:00"),
            ("2026-03-01T10:00:00.123Z", "2026-03-01T10:00:00+00:00"),
            ("2026-03-01T10:00:00.123456+02:00", "2026-03-01T08:00:00+00:00"),
        ],
    )
    def test_timestamps(self, stamp, utc):
        from memlint.sessions import _parse_timestamp

        assert _parse_timestamp(stamp) == datetime.fromisoformat(utc).astimezone().date()

    def test_an_over_long_transcript_line_is_skipped_and_the_text_is_bounded(self, tmp_path, monkeypatch):
        """A record bigger than the line cap (a pasted huge log) is skipped,
        the lines after it are read; past the text cap, reading stops."""
        import memlint.sessions as sessions_mod

        monkeypatch.setattr(sessions_mod, "_MAX_LINE", 1000)
        monkeypatch.setattr(sessions_mod, "_MAX_TEXT", 300)
        d = tmp_path / "sessions"
        d.mkdir()
        records = [{"type": "user", "timestamp": "2026-03-01T10:00:00Z", "message": {"content": "zephyrine first"}},
                   {"type": "user", "message": {"content": "x" * 5000}},
                   {"type": "assistant", "message": {"content": "after the long line " + "y" * 290}},
                   {"type": "assistant", "message": {"content": "past the text cap"}}]
        _write_transcript(d / "big.jsonl", records, broken=False)
        (sess,) = list(sessions_from_dir(d))
        assert "zephyrine first" in sess.text and "after the long line" in sess.text
        assert "x" * 100 not in sess.text and "past the text cap" not in sess.text

    def test_bad_timestamps(self):
        from memlint.sessions import _parse_timestamp

        assert _parse_timestamp(None) is None
        assert _parse_timestamp(12345) is None
        assert _parse_timestamp("yesterday") is None
        assert _parse_timestamp("2026-03-01 garbage") == date(2026, 3, 1)

    @pytest.mark.parametrize("stamp, day", [("9999-12-31T23:00:00-05:00", date(9999, 12, 31)),
                                            ("0001-01-01T00:00:00+05:00", date(1, 1, 1))])
    def test_timestamps_at_the_ends_of_the_calendar_keep_their_own_day(self, stamp, day):
        """Moved to the local zone they would leave the calendar: no crash, their own day."""
        from memlint.sessions import _parse_timestamp

        assert _parse_timestamp(stamp) == day
        assert _parse_timestamp("2026-03-01") == date(2026, 3, 1)

    def test_jsonl_indexed_and_searchable(self, tmp_path):
        d = tmp_path / "sessions"
        d.mkdir()
        _write_transcript(d / "abc.jsonl", TRANSCRIPT)
        with SessionIndex(tmp_path / "s.db") as idx:
            assert idx.update(sessions_from_dir(d)) == 1
            assert idx.document_frequency("caching") == 1  # from the tool_use path
            assert idx.document_frequency("instead of") == 1

    def test_jsonl_without_messages_or_timestamp(self, tmp_path):
        d = tmp_path / "sessions"
        d.mkdir()
        _write_transcript(d / "empty.jsonl", [{"type": "summary", "summary": "x"}])
        (d / "garbage.jsonl").write_bytes(b"\xff\xfe\x00garbage\n{{{\n")
        _write_transcript(
            d / "nots.jsonl", [{"type": "user", "message": {"role": "user", "content": "hi there"}}], broken=False
        )
        os.utime(d / "nots.jsonl", (datetime(2026, 2, 2, 12).timestamp(),) * 2)
        got = list(sessions_from_dir(d))
        assert [s.id for s in got] == ["file:nots.jsonl"]
        assert got[0].when == date(2026, 2, 2)

    def test_md_txt_and_subfolders(self, tmp_path):
        d = tmp_path / "sessions"
        (d / "proj").mkdir(parents=True)
        (d / ".hidden").mkdir()
        (d / "proj" / "abc" / "subagents").mkdir(parents=True)
        (d / "2026-03-05-deploy.md").write_text("deployed ironclaw")
        (d / "proj" / "chat.txt").write_text("plain text session")
        os.utime(d / "proj" / "chat.txt", (datetime(2026, 1, 9, 12).timestamp(),) * 2)
        (d / ".hidden" / "2026-03-06.md").write_text("hidden")
        (d / "image.png").write_bytes(b"\x89PNG")
        _write_transcript(d / "proj" / "abc" / "subagents" / "agent-1.jsonl", TRANSCRIPT)
        got = {s.id: s for s in sessions_from_dir(d)}
        assert set(got) == {"file:2026-03-05-deploy.md", "file:proj/chat.txt"}
        assert got["file:2026-03-05-deploy.md"].when == date(2026, 3, 5)
        assert got["file:proj/chat.txt"].when == date(2026, 1, 9)
        assert list(sessions_from_dir(tmp_path / "nope")) == []

    def test_logs(self, tmp_path):
        (tmp_path / "memory").mkdir()
        (tmp_path / "memory" / "2026-03-01.md").write_text("# log\nworked on gradle")
        (tmp_path / "memory" / "2026-03-02-release.md").write_text("release day")
        (tmp_path / "memory" / "2026-13-45.md").write_text("bad date")
        os.utime(tmp_path / "memory" / "2026-13-45.md", (datetime(2026, 1, 1, 12).timestamp(),) * 2)
        got = list(
            sessions_from_logs(
                tmp_path,
                ["memory/2026-03-01.md", "memory/2026-03-02-release.md", "memory/2026-13-45.md", "memory/missing.md"],
            )
        )
        assert [(s.id, s.when) for s in got] == [
            ("log:memory/2026-03-01.md", date(2026, 3, 1)),
            ("log:memory/2026-03-02-release.md", date(2026, 3, 2)),
            ("log:memory/2026-13-45.md", date(2026, 1, 1)),
        ]
        assert "worked on gradle" in got[0].text

    @pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
    def test_git(self, tmp_path):
        repo = tmp_path / "repo"
        (repo / "memory").mkdir(parents=True)
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
        }

        def git(*args, when=None):
            e = dict(env)
            if when:
                e["GIT_AUTHOR_DATE"] = e["GIT_COMMITTER_DATE"] = when
            subprocess.run(["git", "-C", str(repo), *args], check=True, env=e, capture_output=True)

        git("init", "-q")
        (repo / "memory" / "java-refactoring.md").write_text("x")
        git("add", "-A")
        git("commit", "-q", "-m", "Add refactoring notes\n\nBody mentions ironclaw.", when="2026-03-01T10:00:00+01:00")
        (repo / "src.py").write_text("x")
        git("add", "-A")
        git("commit", "-q", "-m", "code only", when="2026-03-02T10:00:00+01:00")
        (repo / "memory" / "gradle caching.md").write_text("y")
        git("add", "-A")
        git("commit", "-q", "-m", "gradle", when="2026-03-03T23:30:00-05:00")

        got = list(sessions_from_git(repo, "memory"))
        assert [s.when for s in got] == [date(2026, 3, 3), date(2026, 3, 1)]
        assert all(s.id.startswith("git:") and len(s.id) == 44 for s in got)
        assert "memory/gradle caching.md" in got[0].text
        assert "Add refactoring notes" in got[1].text and "ironclaw" in got[1].text
        assert "memory/java-refactoring.md" in got[1].text
        assert len(list(sessions_from_git(repo, None))) == 3
        assert list(sessions_from_git(tmp_path / "not-a-repo", None)) == []
        with SessionIndex(tmp_path / "s.db") as idx:
            assert idx.update(got) == 2
            assert idx.document_frequency("refactoring") == 1


# --------------------------------------------------------------------------
# Planted store: health classes and triage recommendations
# --------------------------------------------------------------------------

FILLER = (
    "build test commit branch review python function class module error "
    "config server client query cache docker script lint format parse token "
    "report issue fix patch merge release schema table index api request"
).split()


def planted_sessions() -> list[Session]:
    """One session a day for 120 days before TODAY (inclusive of today).

    * "ironclaw": 18 of the last 20 days (HOT topic)
    * "libpcb": only 88-92 days ago (COLD topic)
    * "mistakes"/"avoid": nearly every session (false-hot words)
    * "java": 90% of sessions, "refactoring" never recent
    * "gradle"/"caching": every day 32-44 days ago (needs UPDATE)
    * "kubernetes": once, 10 days ago (big runbook: PRUNE)
    """
    rnd = random.Random(1234)
    out = []
    for d in range(120):
        words = rnd.sample(FILLER, 12)
        if d % 23 != 0:
            words += ["we", "should", "avoid", "these", "mistakes"]
        if d % 10 != 0:
            words += ["java"]
        if d < 20 and d not in (4, 11):
            words += ["ironclaw", "deploy"]
        if 88 <= d <= 92:
            words += ["libpcb", "footprint"]
        if 32 <= d <= 44:
            words += ["gradle", "caching"]
        if d in (70, 71):
            words += ["java", "refactoring"]
        if d == 10:
            words += ["kubernetes"]
        rnd.shuffle(words)
        out.append(Session(id=f"log:memory/{ago(d).isoformat()}.md", when=ago(d), text=" ".join(words)))
    return out


# path -> (title, tags, days since changed, line count, first lines)
PLANTED_FILES = {
    "memory/project_ironclaw.md": ("IronClaw deployment", [], 3, 80, "Always deploy with the canary.\nNever skip it."),
    "memory/project_libpcb.md": ("lib-pcb architecture", [], 100, 120, "Footprint parser history."),
    "memory/feedback_mistakes-to-avoid.md": (None, [], 10, 40, "Things we must never do."),
    "memory/java-refactoring.md": (None, [], 10, 40, "Refactoring patterns."),
    "memory/feedback_gradle-caching.md": (None, ["gradle"], 50, 30, "Always use --build-cache."),
    "memory/reference_kubernetes-runbook.md": (None, ["k8s"], 20, 420, "Runbook.\n" * 50),
}


@pytest.fixture(scope="module")
def planted_index(tmp_path_factory):
    db = tmp_path_factory.mktemp("planted") / "sessions.db"
    idx = SessionIndex(db)
    assert idx.update(planted_sessions()) == 120
    yield idx
    idx.close()


def _health(idx):
    engs = {
        p: engagement(idx, keywords(p, t, tags), TODAY, HEALTH_WINDOW_DAYS)
        for p, (t, tags, *_rest) in PLANTED_FILES.items()
    }
    max_hits = max(e.hits for e in engs.values())
    out = {}
    for p, e in engs.items():
        h = hotness(e.hits, max_hits, PLANTED_FILES[p][2])
        out[p] = (e, h, hot_class(h))
    return out


def _triage(idx):
    out = {}
    for p, (t, tags, changed, lines, head) in PLANTED_FILES.items():
        e = engagement(idx, keywords(p, t, tags), TODAY, TRIAGE_WINDOW_DAYS)
        last = None if e.last_session is None else (TODAY - e.last_session).days
        out[p] = triage(last, e.sessions, head, changed, lines)
    return out


class TestPlanted:
    def test_health_classes(self, planted_index):
        got = {p: cls for p, (_e, _h, cls) in _health(planted_index).items()}
        assert got == {
            "memory/project_ironclaw.md": "HOT",
            "memory/project_libpcb.md": "COLD",
            "memory/feedback_mistakes-to-avoid.md": "WARM",  # only its fresh edit, no hits
            "memory/java-refactoring.md": "WARM",
            "memory/feedback_gradle-caching.md": "COLD",
            "memory/reference_kubernetes-runbook.md": "WARM",
        }

    def test_health_details(self, planted_index):
        h = _health(planted_index)
        hot_e, hot_h, _ = h["memory/project_ironclaw.md"]
        assert hot_e.sessions == 18
        assert hot_e.last_session == TODAY
        assert hot_e.matched[0] == "ironclaw"
        assert hot_h == pytest.approx(0.6 + 0.4 * 57 / 60)
        false_e, false_h, _ = h["memory/feedback_mistakes-to-avoid.md"]
        assert false_e == Engagement(hits=0.0, sessions=0, last_session=None, matched=())
        assert false_h == pytest.approx(0.4 * 50 / 60)
        java_e, _, _ = h["memory/java-refactoring.md"]
        assert java_e.sessions == 0 and java_e.last_session == ago(70)
        cold_e, cold_h, _ = h["memory/project_libpcb.md"]
        assert cold_e.sessions == 0 and cold_e.last_session == ago(88) and cold_h == 0.0
        k8s_e, _, _ = h["memory/reference_kubernetes-runbook.md"]
        assert k8s_e.sessions == 1 and k8s_e.matched == ("kubernetes",)
        assert k8s_e.hits == pytest.approx(1.0)

    def test_false_hot_would_be_hot_without_idf(self, planted_index):
        """Sanity check of the planted data: plain counting (the spec's
        formula without weights) does make the common-word files HOT."""
        since = TODAY - timedelta(days=HEALTH_WINDOW_DAYS)

        def naive(p):
            t, tags, *_ = PLANTED_FILES[p]
            ids = set()
            for kw in keywords(p, t, tags):
                ids |= {sid for sid, d in planted_index.hits(kw, since=since) if d <= TODAY}
            return len(ids)

        counts = {p: naive(p) for p in PLANTED_FILES}
        max_hits = max(counts.values())
        assert counts["memory/feedback_mistakes-to-avoid.md"] > counts["memory/project_ironclaw.md"]
        assert hot_class(hotness(counts["memory/feedback_mistakes-to-avoid.md"], max_hits, 10)) == "HOT"
        assert hot_class(hotness(counts["memory/java-refactoring.md"], max_hits, 10)) == "HOT"

    def test_triage_recommendations(self, planted_index):
        got = {p: t.recommendation for p, t in _triage(planted_index).items()}
        assert got == {
            "memory/project_ironclaw.md": "KEEP",
            "memory/project_libpcb.md": "ARCHIVE",
            "memory/feedback_mistakes-to-avoid.md": "KEEP",
            "memory/java-refactoring.md": "KEEP",
            "memory/feedback_gradle-caching.md": "UPDATE",
            "memory/reference_kubernetes-runbook.md": "PRUNE",
        }

    def test_triage_details(self, planted_index):
        t = _triage(planted_index)
        upd = t["memory/feedback_gradle-caching.md"]
        assert (upd.recency, upd.recurrence) == (0.1, 1.0)
        hot = t["memory/project_ironclaw.md"]
        assert (hot.recency, hot.recurrence, hot.actionability) == (1.0, 1.0, pytest.approx(2 / 3))
        assert hot.score == pytest.approx(0.30 + 0.25 + 0.25 * 2 / 3 + 0.20 * (1 - 3 / 60))
        prune = t["memory/reference_kubernetes-runbook.md"]
        assert (prune.recency, prune.recurrence) == (0.7, pytest.approx(1 / 3))
        # the ranking puts the files needing attention last
        ranked = sorted(t, key=lambda p: t[p].score)
        assert ranked[0] == "memory/project_libpcb.md"
        assert ranked[-1] == "memory/project_ironclaw.md"

    def test_window_and_future_sessions(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            idx.update([Session(f"x{i}", ago(d), "zeppelin") for i, d in enumerate([0, 29, 30, -2])]
                       + [Session(f"f{i}", ago(i), "filler") for i in range(40)])
            e = engagement(idx, ["zeppelin"], TODAY, 30)
            assert e.sessions == 2  # the last 30 days, today included: 0 and 29 days ago; 30 is out, future ignored
            assert e.last_session == TODAY
            e = engagement(idx, ["zeppelin"], ago(1), 30)
            assert e.sessions == 2 and e.last_session == ago(29)
            assert engagement(idx, ["zeppelin"], TODAY, 1).sessions == 1  # today only

    def test_session_counted_once_with_best_weight(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            sessions = [Session(f"c{i}", ago(i % 30), "common word") for i in range(60)]
            sessions += [Session(f"m{i}", ago(i), "common and medium") for i in range(10)]
            sessions += [Session("r", ago(1), "rare medium common")]
            idx.update(sessions)
            n = idx.count()
            w_medium = idf(11, n)
            assert 0 < w_medium < 1
            e = engagement(idx, ["rare", "medium", "common", "rare"], TODAY, 30)
            assert idf(idx.document_frequency("common"), n) == 0.0
            assert e.sessions == 11  # not 71: "common" is ignored
            assert e.hits == pytest.approx(1.0 + 10 * w_medium)
            assert e.matched == ("rare", "medium")

    def test_empty_index(self, tmp_path):
        with SessionIndex(tmp_path / "s.db") as idx:
            assert engagement(idx, ["anything"], TODAY) == Engagement(0.0, 0, None, ())
            assert engagement(idx, [], TODAY) == Engagement(0.0, 0, None, ())
