"""MEM601 secret-in-memory: fires on every role, allow-listing, and the secret
never reaches any output. Fake secrets are assembled at run time, so no
credential-shaped string is committed."""
from __future__ import annotations

import json
import random
import string
import subprocess
import sys

import pytest

from memlint.secrets import fingerprint
from tests.conftest import REPO

_rng = random.Random(601)
B62 = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = B62) -> str:
    while True:
        s = "".join(_rng.choice(alphabet) for _ in range(n))
        if not any(w in s.lower() for w in ("xxxx", "abcd", "1234", "your", "fake", "test", "qwer", "asdf")):
            return s


GITHUB = "gh" + "p_" + _rand(36)
AWS_ID = "AK" + "IA" + _rand(16, string.ascii_uppercase + "234567")
PASSWORD = _rand(24)
KEY_BODY = "\n".join(_rand(64, B62 + "+/") for _ in range(4))
APP_PASSWORD = _rand(16, string.ascii_lowercase)  # Gmail's: 16 lowercase letters, shown in groups of four
GROUPED = " ".join(APP_PASSWORD[i:i + 4] for i in range(0, 16, 4))
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + KEY_BODY + "\n-----END RSA PRIVATE KEY-----"
SECRETS = [GITHUB, AWS_ID, PASSWORD, KEY_BODY.split("\n")[0]]

MEM = "---\nname: {name}\ndescription: d\ntype: reference\n---\n"
STORE = {
    "MEMORY.md": f"# Index\n- [Deploy](deploy.md) — token {GITHUB}\n- [Keys](keys.md) — keys\n",
    "deploy.md": MEM.format(name="deploy") + f"Deploy with GITHUB_TOKEN={GITHUB}\n",
    "keys.md": MEM.format(name="keys") + f"AWS key id {AWS_ID}\n\n```\n{PRIVATE_KEY}\n```\n",
    "2026-03-01.md": f"# Log\ndb_password = \"{PASSWORD}\"\n",
    # the secret where other rules quote values: a frontmatter field, a date
    "bad-fields.md": f"---\nname: bad-fields\ndescription: d\ntype: {GITHUB}\ncreated: {AWS_ID}\n---\nBody.\n",
}


def _codes(found, code="MEM601"):
    return sorted((path, line) for path, line, c in found if c == code)


def test_fires_on_every_role_with_line_and_kind(make_store, cli):
    store = make_store(STORE)
    result = cli("check", "--format", "json", "--select", "MEM601", store)
    assert result.exit_code == 1
    got = sorted((f["path"], f["line"], f["column"], f["message"].split(" (")[0]) for f in result.json())
    assert got == [
        ("2026-03-01.md", 2, 16, "high-entropy value assigned to a secret-like name"),  # a daily log
        ("MEMORY.md", 2, 31, "GitHub token"),  # the root
        ("bad-fields.md", 4, 7, "GitHub token"),
        ("bad-fields.md", 5, 10, "AWS access key id"),
        ("deploy.md", 6, 26, "GitHub token"),
        ("keys.md", 6, 12, "AWS access key id"),
        ("keys.md", 9, 1, "private key block"),
    ]
    assert f"fingerprint {fingerprint(GITHUB)}" in result.json()[1]["message"]


def test_quiet_on_placeholders_and_prose(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Index\n- [Tokens](tokens.md) — where tokens live\n",
        "tokens.md": MEM.format(name="tokens") + (
            "The deploy token is in 1Password (Deploy/GitHub).\n"
            "Set GITHUB_TOKEN=<your-token> or export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE.\n"
            "password: changeme\n"
        ),
    })
    assert _codes(findings(store)) == []


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_password_of_random_letters_fires_and_is_never_printed(make_store, cli, fmt):
    """A Gmail app password, bare or in Google's groups of four, is found
    where it is, and again where it recurs with no name (``created``); words
    in one case stay quiet; no output shows it, nor a message of another
    rule that quotes it (MEM004 on ``created``)."""
    store = make_store({
        "MEMORY.md": "# Index\n- [Mail](mail.md) — mail\n",
        "mail.md": MEM.format(name="mail").replace("type: reference\n", f"type: reference\ncreated: {APP_PASSWORD}\n")
        + f"- App password: {APP_PASSWORD} (for me@gmail.com)\n"
        + f"- SMTP_PASSWORD=`{GROUPED}`\n"
        + "- password: correcthorsebatterystaple\n- token: refreshtoken\n- api_key: yourapikeyhere\n"
        + "- secret: notasecret\n- password: see the vault\n",
    })
    found = cli("check", "--format", "json", store).json()
    assert [(f["path"], f["line"], f["column"], f["message"].split(" (")[0]) for f in found if f["code"] == "MEM601"] == [
        ("mail.md", 5, 10, "a secret found elsewhere in this file, again"),  # the same value, recurring
        ("mail.md", 7, 17, "high-entropy value assigned to a secret-like name"),
        ("mail.md", 8, 18, "high-entropy value assigned to a secret-like name"),
    ]
    assert all(f"fingerprint {fingerprint(APP_PASSWORD)}" in f["message"] for f in found if f["code"] == "MEM601")
    assert any(f["code"] == "MEM004" and f["line"] == 5 for f in found)  # it quotes the value, redacted
    output = cli("check", "--format", fmt, store).output
    for part in (APP_PASSWORD, GROUPED, APP_PASSWORD[4:12], GROUPED[5:14]):
        assert part not in output, part


def test_the_app_password_in_a_real_store_is_found(corpora, cli):
    """The ahmed store's daily log of 2026-03-18 keeps a Gmail app password."""
    found = cli("check", "--no-cache", "--format", "json", "--select", "MEM601", corpora["ahmed"]).json()
    assert ("memory/archive/2026-03/2026-03-18.md", 339, 17) in {(f["path"], f["line"], f["column"]) for f in found}


def test_a_key_after_an_arrow_or_in_a_code_span_after_its_name_fires(make_store, cli):
    """``name → value`` and ``name `value` `` (no ``:`` or ``=``) assign as
    agents write them; an arrow in a flow of words does not."""
    store = make_store({
        "MEMORY.md": "# Index\n- [Keys](keys.md) — keys\n",
        "keys.md": MEM.format(name="keys") + f"- OpenAI API key → {PASSWORD}\n- Consumer key fixed: ak_→{PASSWORD}\n"
        + f"- `OPENAI_API_KEY` `{PASSWORD}`\n- Configured consumer key (`{PASSWORD}`) in openclaw.json\n"
        + "- token → refresh → access, see the OAuth notes\n",
    })
    result = cli("check", "--format", "json", "--select", "MEM601", store)
    assert PASSWORD not in result.output
    assert [(f["path"], f["line"], f["column"], f["message"].split(" (")[0]) for f in result.json()] == [
        ("keys.md", 6, 20, "high-entropy value assigned to a secret-like name"),
        ("keys.md", 7, 27, "high-entropy value assigned to a secret-like name"),
        ("keys.md", 8, 21, "high-entropy value assigned to a secret-like name"),
        ("keys.md", 9, 29, "high-entropy value assigned to a secret-like name"),
    ]


def test_keys_after_an_arrow_or_in_a_code_span_in_a_real_store_are_found(corpora, cli):
    """The ahmed store: "consumer key fixed: ak_→ck_..." and "Configured consumer key (`ck_...`)"."""
    found = cli("check", "--no-cache", "--format", "json", "--select", "MEM601", corpora["ahmed"]).json()
    assert {("memory/2026-03-27.md", 111, 36), ("memory/archive/2026-03/2026-03-13.md", 7, 29)} <= {
        (f["path"], f["line"], f["column"]) for f in found}


def test_a_login_pair_fires_at_its_password_wherever_it_is_in_the_file(make_store, cli):
    """``user / password`` under a name for a login (a table row, a list
    item, a heading) is found at the password, and the same password again
    in prose below; never printed. A pair no name calls a login is not."""
    login = _rand(9) + "!!"
    store = make_store({
        "MEMORY.md": "# Index\n- [Sim](sim.md) — simulator\n",
        "sim.md": MEM.format(name="sim")
        + f"| Item | Value | Notes |\n|---|---|---|\n| Authentication | admin / {login} | XIQ login or LDAP |\n\n"
        + f"- Credentials: admin / {login}\n"
        + f"2. \"Start the Simulation\" auth block (admin/{login})\n\n"
        + f"### Test credentials\nme@gmail.com / {login}x → Group_A → VLAN 10\n\n"
        + "- Docs: Documents/WiFi-6-Guide.pdf, read/write, TCP/IP, N/A\n"
        + "- Credentials: see 1Password / vault\n",
    })
    result = cli("check", "--format", "json", "--select", "MEM601", store)
    assert login not in result.output
    assert [(f["path"], f["line"], f["column"], f["message"].split(" (")[0]) for f in result.json()] == [
        ("sim.md", 8, 28, "password of a user/password pair"),
        ("sim.md", 10, 24, "password of a user/password pair"),
        ("sim.md", 11, 45, "a secret found elsewhere in this file, again"),
        ("sim.md", 14, 16, "password of a user/password pair"),
    ]
    assert [f["message"].count(fingerprint(login)) for f in result.json()] == [1, 1, 1, 0]


def test_a_secret_allowed_stays_allowed_where_it_recurs_and_by_its_older_fingerprint(make_store, cli):
    """A value allowed inline is not found again where it recurs; an
    allow-list entry made for `admin/PASS` read whole (before pairs were
    read) still allows its password; a name the generic rule took for a
    secret is not hunted through the prose; logins by e-mail or a provider
    are no user/password pairs."""
    from memlint.secrets import fingerprint

    password, whole = "Xk9mP2vL5qRt", "admin/Xk9mP2vL5qRt"
    store = make_store({
        "MEMORY.md": "# Index\n- [S](s.md) — s\n",
        "s.md": MEM.format(name="s")
        + "Seed password: Zq7Vx2Lm9Rt4Wp <!-- memlint-allow-secret -->\n\nThe fixture signs in with Zq7Vx2Lm9Rt4Wp.\n"
        + f"Credentials: {whole}\n"
        + "| Tool | Auth |\n|---|---|\n| Vercel | GitHub/OAuth-2024 |\n\n- Login: email/OTP-6digit (a code is mailed)\n",
    })
    (store / ".memlint.yaml").write_text(f"rules:\n  secret-in-memory:\n    allow: [{fingerprint(whole)}]\n")
    result = cli("check", "--format", "json", "--select", "MEM601", store)
    assert result.json() == [] and result.exit_code == 0, result.output
    (store / ".memlint.yaml").unlink()
    found = cli("check", "--format", "json", "--select", "MEM601", store).json()
    assert [f["message"].split(" (")[0] for f in found] == ["password of a user/password pair"]
    assert fingerprint(password) in found[0]["message"]


def test_the_login_pairs_of_a_real_store_are_found(corpora, cli):
    """The khursheed store: its README says "admin / <password>" is a live
    plaintext password. Found in a table row, after "Credentials:", and
    again in the same files' prose; and a test login under "### Test
    credentials". A temporary password spelling "Password" with a "!" is a
    password, as one spelling "Pass" is."""
    found = cli("check", "--no-cache", "--format", "json", "--select", "MEM601", corpora["khursheed"]).json()
    assert {
        ("project_voss_simulator.md", 22, 28), ("project_voss_simulator.md", 38, 45),
        ("project_voss_simulator.md", 123, 27), ("project_voss_simulator_sprint_plan.md", 77, 24),
        ("project_fifa_wc_seattle_sprint.md", 155, 27),
        ("project_user_management_sprint.md", 50, 71), ("project_user_management_sprint.md", 110, 52),
    } <= {(f["path"], f["line"], f["column"]) for f in found}


def test_inline_allow_comment(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Index\n- [D](deploy.md) — d\n",
        "deploy.md": MEM.format(name="deploy")
        + f"Public test key {GITHUB} <!-- memlint-allow-secret -->\n"
        + "<!-- memlint-allow-secret -->\n"
        + f"AWS {AWS_ID}\n"
        + f"Not allowed: {AWS_ID}\n",
    })
    assert _codes(findings(store)) == [("deploy.md", 9)]


def test_allow_by_fingerprint_in_config(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Index\n- [D](deploy.md) — d\n",
        "deploy.md": MEM.format(name="deploy") + f"{GITHUB}\n{AWS_ID}\n",
        ".memlint.yaml": f"rules:\n  secret-in-memory:\n    allow: [{fingerprint(GITHUB)}]\n",
    })
    assert _codes(findings(store)) == [("deploy.md", 7)]


def test_allow_must_be_a_list_of_strings(make_store, cli):
    store = make_store({"MEMORY.md": "# Index\n", ".memlint.yaml": "rules:\n  MEM601:\n    allow: abc\n"})
    result = cli("check", store)
    assert result.exit_code == 2 and "allow" in result.stderr


def test_suppression_directive_and_off(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Index\n- [D](deploy.md) — d\n",
        "deploy.md": MEM.format(name="deploy") + f"<!-- memlint-disable-next-line MEM601 -->\n{GITHUB}\n",
    })
    assert _codes(findings(store)) == []
    store2 = make_store({"MEMORY.md": f"# Index\n{GITHUB}\n", ".memlint.yaml": "rules:\n  MEM601: off\n"}, sub="off")
    assert _codes(findings(store2)) == []


def test_files_in_the_wrong_encoding_are_scanned_too(make_store, findings):
    store = make_store({
        "MEMORY.md": "# Index\n- [L](latin.md)\n- [U](utf16.md)\n",
        "latin.md": ("Caf\u00e9\n" + f"token {GITHUB}\n").encode("latin-1"),
        "utf16.md": (f"line\ntoken {GITHUB}\n").encode("utf-16"),
    })
    found = findings(store)
    assert _codes(found) == [("latin.md", 2), ("utf16.md", 2)]
    assert _codes(found, "MEM006") == [("latin.md", 1), ("utf16.md", 1)]


def test_files_with_nul_bytes_are_scanned_too(make_store, cli):
    """A NUL byte makes a file "binary" (MEM006): its secrets leak all the
    same, so it is scanned as text (UTF-16 without a byte order mark as
    UTF-16), on the line the secret is on; binary data without one is quiet."""
    noise = random.Random(6).randbytes(200_000)
    store = make_store({
        "MEMORY.md": "# Index\n- [B](bin.md)\n- [U](utf16.md)\n- [N](noise.md)\n",
        "bin.md": f"x\0y\ncaf\xe9\n\ntoken {GITHUB}\n".encode("latin-1"),
        "utf16.md": f"line\ncafé\ndb_password = \"{PASSWORD}\"\n".encode("utf-16-le"),
        "noise.md": noise,
    })
    result = cli("check", "--format", "json", store)
    assert GITHUB not in result.output and PASSWORD not in result.output
    found = result.json()
    assert [(f["path"], f["line"], f["column"], f["message"].split(" (")[0]) for f in found if f["code"] == "MEM601"] == [
        ("bin.md", 4, 7, "GitHub token"),
        ("utf16.md", 3, 16, "high-entropy value assigned to a secret-like name"),
    ]
    assert sorted((f["path"], f["message"]) for f in found if f["code"] == "MEM006") == [
        ("bin.md", "binary file with a markdown name"),
        ("noise.md", "binary file with a markdown name"),
        ("utf16.md", "binary file with a markdown name"),
    ]


def test_a_staged_run_scans_the_staged_bytes_of_a_file_in_the_wrong_encoding(tmp_path, findings):
    """The commit is what leaks: not the working copy, edited since it was staged."""
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.write("MEMORY.md", "# Index\n- [L](latin.md)\n- [M](moved.md)\n")
    repo.commit("index")
    for name, staged, working in (("latin.md", f"token {GITHUB}\n", "token removed\n"),
                                  ("moved.md", "nothing here\n", f"token {GITHUB}\n")):
        repo.path(name).write_bytes(("Caf\u00e9\n" + staged).encode("latin-1"))
        repo.add(name)
        repo.path(name).write_bytes(("Caf\u00e9\n" + working).encode("latin-1"))
    for cache in ((), ("--no-cache",)):
        assert _codes(findings(repo.root, "--staged", *cache)) == [("latin.md", 2)]
        assert _codes(findings(repo.root, *cache)) == [("moved.md", 2)]


def test_symlinked_secret_outside_the_repository_is_not_read(tmp_path, make_store, findings):
    outside = tmp_path / "outside.md"
    outside.write_text(f"{GITHUB}\n")
    store = make_store({"MEMORY.md": "# Index\n- [O](out.md)\n"})
    (store / "out.md").symlink_to(outside)
    found = findings(store)
    assert _codes(found) == [] and _codes(found, "MEM006") == [("out.md", 1)]


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_no_output_format_ever_prints_the_secret(make_store, fmt):
    store = make_store(STORE)
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "memlint", "check", "--format", fmt, str(store)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1 and "MEM601" in proc.stdout
    assert "Traceback" not in proc.stderr
    for secret in SECRETS:
        for part in (secret, secret[4:20]):  # nor a long piece of it
            assert part not in proc.stdout and part not in proc.stderr, (fmt, part)
    if fmt == "json":
        assert {f["code"] for f in json.loads(proc.stdout)} >= {"MEM601"}


def test_other_rules_quote_the_secret_redacted(make_store, cli):
    store = make_store(STORE)
    # MEM004 alone; then with MEM601, whose scan the cache keeps (the
    # redaction skips files that scan found clean); then from that cache.
    for select in ("MEM004", "MEM004,MEM601", "MEM004,MEM601,MEM001"):
        result = cli("check", "--format", "json", "--select", select, store)
        (finding,) = [f for f in result.json() if f["path"] == "bad-fields.md" and f["code"] == "MEM004"]
        assert finding["line"] == 5 and AWS_ID[:4] + "…(20 chars)" in finding["message"]
        assert AWS_ID not in finding["message"]


def test_a_value_that_is_a_secret_only_where_the_file_assigns_it_is_redacted_too(make_store, cli):
    """The message alone does not show it is a secret (no known format): the
    file's scan does (a high-entropy value assigned to ``api_key``); also when
    the cache holds that scan, and for a clean file beside it."""
    value = "Zq8vN2mK4pL9xR7tW3yB6"
    store = make_store({
        "MEMORY.md": "# Index\n- [Keys](keys.md) — keys\n- [Plain](plain.md) — plain\n",
        "keys.md": f"---\nname: keys\ndescription: d\ntype: reference\napi_key: {value}\ncreated: {value}\n---\nBody.\n",
        "plain.md": "---\nname: plain\ndescription: d\ntype: reference\ncreated: someday-soon\n---\nBody.\n",
    })
    for select in ("MEM004,MEM601", "MEM004,MEM601,MEM001"):
        found = {f["path"]: f["message"] for f in cli("check", "--format", "json", "--select", select, store).json()
                 if f["code"] == "MEM004"}
        assert value not in found["keys.md"] and value[:4] + "…(21 chars)" in found["keys.md"]
        assert "someday-soon" in found["plain.md"]


def test_a_file_in_a_folder_that_cannot_be_entered_is_no_internal_error(make_store, cli, monkeypatch):
    """As a user without execute permission on its folder: asking whether the
    file is a link raises EACCES (root, running the suite, cannot be refused)."""
    from pathlib import Path

    store = make_store({"MEMORY.md": "# M\n- [Y](locked/y.md) — y\n", "locked/y.md": "caf\xe9\n".encode("latin-1")})
    real = Path.is_symlink

    def refused(self):
        if self.parent.name == "locked":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_symlink", refused)
    found = cli("check", "--format", "json", store).json()
    assert "MEM000" not in {f["code"] for f in found}
