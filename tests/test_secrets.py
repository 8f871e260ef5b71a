"""Tests for memlint.secrets.

No realistic credential appears literally in this file: every fake token is
assembled at import time from a seeded RNG, so neither push-protection
scanners nor memlint itself flag the test suite.
"""

from __future__ import annotations

import dataclasses
import random
import re
import string
import time

import pytest

from memlint.secrets import ALLOW_COMMENT, SecretHit, fingerprint, redact, scan

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
B62 = UP + LO + DG
HEX = "0123456789abcdef"

_rng = random.Random(20240601)
_BAD = re.compile(r"(.)\1{4}|1234|abcd|xxxx|your|fake|test|qwer|asdf", re.IGNORECASE)


def rand(n: int, alphabet: str = B62) -> str:
    """Random string without accidental placeholder-looking runs."""
    while True:
        s = "".join(_rng.choice(alphabet) for _ in range(n))
        if not _BAD.search(s):
            return s


def hits(text: str, **kw) -> list[SecretHit]:
    return list(scan(text, **kw))


# --------------------------------------------------------------------------
# fake credentials, one per kind
# --------------------------------------------------------------------------

TOKENS: dict[str, tuple[str, str]] = {
    # name: (kind, token)
    "aws_id": ("AWS access key id", "AK" + "IA" + rand(16, UP + "234567")),
    "aws_sts_id": ("AWS access key id", "AS" + "IA" + rand(16, UP + "234567")),
    "github_classic": ("GitHub token", "gh" + "p_" + rand(36)),
    "github_oauth": ("GitHub token", "gh" + "o_" + rand(36)),
    "github_user": ("GitHub token", "gh" + "u_" + rand(36)),
    "github_server": ("GitHub token", "gh" + "s_" + rand(36)),
    "github_refresh": ("GitHub token", "gh" + "r_" + rand(36)),
    "github_fine": ("GitHub token", "github" + "_pat_" + rand(22) + "_" + rand(59)),
    "gitlab": ("GitLab token", "gl" + "pat-" + rand(20)),
    "slack_bot": ("Slack token", "xo" + "xb-" + rand(12, DG) + "-" + rand(13, DG) + "-" + rand(24)),
    "slack_user": (
        "Slack token",
        "xo" + "xp-" + rand(12, DG) + "-" + rand(12, DG) + "-" + rand(13, DG) + "-" + rand(32, HEX),
    ),
    "slack_app": (
        "Slack token",
        "xa" + "pp-1-" + rand(11, UP + DG) + "-" + rand(13, DG) + "-" + rand(64, HEX),
    ),
    "slack_webhook": (
        "Slack webhook URL",
        "https://hooks.slack.com/services/T"
        + rand(9, UP + DG)
        + "/B"
        + rand(9, UP + DG)
        + "/"
        + rand(24),
    ),
    "openai_project": ("OpenAI API key", "sk" + "-proj-" + rand(120, B62 + "_-")),
    "openai_legacy": ("OpenAI API key", "sk" + "-" + rand(20) + "T3Blbk" + "FJ" + rand(20)),
    "sk_hex": ("sk- prefixed API key", "sk" + "-" + rand(32, HEX)),
    "sk_tagged": ("sk- prefixed API key", "sk" + "-sp-" + rand(32, LO + DG)),
    "anthropic": ("Anthropic API key", "sk" + "-ant-api03-" + rand(93, B62 + "_-") + "AA"),
    "google": ("Google API key", "AI" + "za" + rand(35, B62 + "_-")),
    "stripe_secret": ("Stripe secret key", "sk" + "_live_" + rand(24)),
    "stripe_restricted": ("Stripe secret key", "rk" + "_live_" + rand(99)),
    "twilio": ("Twilio API key", "S" + "K" + rand(32, HEX)),
    "sendgrid": ("SendGrid API key", "SG" + "." + rand(22, B62 + "_-") + "." + rand(43, B62 + "_-")),
    "npm": ("npm token", "np" + "m_" + rand(36)),
    "pypi": ("PyPI token", "py" + "pi-AgEIcHlwaS5vcmc" + rand(150, B62 + "_-")),
    "huggingface": ("Hugging Face token", "h" + "f_" + rand(34)),
    "replicate": ("Replicate API token", "r" + "8_" + rand(37)),
    "telegram": ("Telegram bot token", rand(10, DG) + ":" + "AA" + rand(33, B62 + "_-")),
    "jwt": (
        "JWT",
        "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".ey" + rand(60, B62 + "_-") + "." + rand(43, B62 + "_-"),
    ),
}

PREFIX = "- Found in the logs → "  # contains a non-ASCII char: columns count code points


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_each_vendor_kind_fires_with_exact_position(name):
    kind, token = TOKENS[name]
    text = "# Notes\n\n" + PREFIX + token + " (rotate!)\n"
    found = hits(text)
    assert [(h.line, h.column, h.kind) for h in found] == [(3, len(PREFIX) + 1, kind)]
    assert found[0].fingerprint == fingerprint(token)


def test_hardcoded_column_and_line():
    token = TOKENS["github_classic"][1]
    text = "line one\nline two\n    export GH=" + token + "\n"
    (hit,) = hits(text)
    assert (hit.line, hit.column) == (3, 15)


def test_token_at_start_and_end_of_text():
    token = TOKENS["npm"][1]
    assert [(h.line, h.column) for h in hits(token)] == [(1, 1)]
    assert [(h.line, h.column) for h in hits("a\n" + token)] == [(2, 1)]


def test_token_glued_to_other_token_characters_does_not_fire():
    token = TOKENS["google"][1]
    assert hits("x" + token) == []
    assert hits(token + "Q") == []
    assert hits("mask-" + TOKENS["openai_legacy"][1]) == []  # "...k-" inside a word


def test_private_key_block_reported_once_at_begin_line():
    body = "\n".join(rand(64, B62 + "+/") for _ in range(6))
    text = (
        "Deploy key for the box:\n"
        "```\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----\n"
        "```\n"
    )
    assert [(h.line, h.column, h.kind) for h in hits(text)] == [(3, 1, "private key block")]


@pytest.mark.parametrize(
    "header",
    [
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----BEGIN EC PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    ],
)
def test_private_key_variants(header):
    text = "  " + header + "\n  " + rand(64, B62 + "+/") + "\n  " + rand(40, B62 + "+/") + "\n"
    assert [(h.line, h.column) for h in hits(text)] == [(1, 3)]


def test_private_key_inside_json_string():
    text = '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n' + rand(
        64, B62 + "+/"
    ) + '\\n-----END PRIVATE KEY-----\\n"}'
    found = hits(text)
    assert [(h.line, h.column, h.kind) for h in found] == [
        (1, text.index("-----BEGIN") + 1, "private key block")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The file starts with `-----BEGIN OPENSSH PRIVATE KEY-----` and ends with the END line.",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\n<paste key here>\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 64 + "\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nsee /home/user/projects/agents/memory/keys/deploy/readme\n",
        "-----BEGIN PUBLIC KEY-----\n" + rand(64, B62 + "+/") + "\n-----END PUBLIC KEY-----\n",
        "-----BEGIN CERTIFICATE-----\n" + rand(64, B62 + "+/") + "\n-----END CERTIFICATE-----\n",
    ],
)
def test_private_key_mentions_without_key_material_do_not_fire(text):
    assert hits(text) == []


# --------------------------------------------------------------------------
# generic rule
# --------------------------------------------------------------------------

GENERIC = "high-entropy value assigned to a secret-like name"
VAL = rand(24, B62 + "!#%^")
HEXVAL = rand(40, HEX)


@pytest.mark.parametrize(
    "line, column",
    [
        ('db_password = "' + VAL + '"', 16),
        ("password: " + VAL, 11),
        ("  passwd: '" + VAL + "'", 12),
        ("SECRET=" + VAL, 8),
        ('"api_key": "' + VAL + '"', 13),
        ("apiKey => '" + VAL + "'", 12),
        ("ACCESS_KEY := " + VAL, 15),
        ("private-key: " + VAL, 14),
        ("client_secret: `" + VAL + "`", 17),
        ("auth: " + VAL, 7),
        ("Authorization: Bearer " + VAL, 23),
        ('"Authorization": "Basic ' + VAL + '"', 25),
        ("- **Webhook secret**: `" + HEXVAL + "`", 24),
        ("- **Token:** " + VAL, 14),
        ("Gateway API token: `" + HEXVAL + "` (in config.json)", 21),
        ("export GITHUB_TOKEN=" + HEXVAL, 21),
        ("curl --password=" + VAL + " https://x", 17),
        ("session_token: " + rand(8, HEX) + "-" + rand(4, HEX) + "-" + rand(4, HEX) + "-"
         + rand(4, HEX) + "-" + rand(12, HEX), 16),
        ("- API Key: " + HEXVAL, 12),  # a label in two words
        ("Access key = `" + VAL + "`", 15),
        ("| **AppSecret** | `" + HEXVAL + "` |", 20),  # a table row: name cell, value cell
        ("- API  Key: " + HEXVAL, 13),
        ("| **API Key** | " + HEXVAL + " |", 17),
        ("Stripe-API Key: " + HEXVAL, 17),
        ("password: 20240315-5ivu0vhpinhjkrdcgcahh5is7ajafa7s", 11),  # a client id's shape, not its 12 digits
        # labels of several words, as agents write them in daily logs
        ("- 当前 API Key `" + HEXVAL + "` 是 Gamma API", 15),  # no operator: a code span after the name
        ("- Management key updated: `" + VAL + "`", 28),
        ("- Composio consumer key: " + VAL, 26),
        ("- API key saved to ~/.env: `" + VAL + "`", 29),
        ("Tap token rotated: " + VAL, 20),
        ("the password `" + VAL + "` works", 15),
        ("测试环境数据库密码：" + VAL, 11),  # labels in the languages agents keep notes in
        ("API密钥：" + VAL, 7),
        ("パスワード: " + VAL, 8),
        ("비밀번호: " + VAL, 7),
        ("Passwort: " + VAL, 11),
        ("Kennwort: " + VAL, 11),
        ("mot de passe : " + VAL, 16),
        ("contraseña: " + VAL, 13),
        ("Пароль: " + VAL, 9),
        ("MOT DE PASSE : " + VAL, 16),
        ("CONTRASEÑA: " + VAL, 13),
        ("- env:OPENAI_API_KEY=" + VAL, 22),  # a colon before the name is no ARN
        ("prod:api_key=" + VAL, 14),
        ("non-public api_key: " + VAL, 21),
        ("ENCRYPTION_KEY=" + VAL, 16),  # an environment variable named for a key
        ("password：" + VAL, 10),  # the full-width colon CJK keyboards type
    ],
)
def test_generic_assignment_fires(line, column):
    found = hits("intro\n" + line + "\n")
    assert [(h.line, h.column, h.kind) for h in found] == [(2, column, GENERIC)]


# A password of letters alone, in one case: Gmail's app passwords are 16
# lowercase letters, shown as four groups of four.
APP_PASSWORD = rand(16, LO)
GROUPED = " ".join(APP_PASSWORD[i : i + 4] for i in range(0, 16, 4))


@pytest.mark.parametrize(
    "line, column, length",
    [
        ("- App password: " + APP_PASSWORD + " (for me@gmail.com)", 17, 16),
        ("password: " + APP_PASSWORD.capitalize(), 11, 16),
        ("SMTP_PASSWORD=" + APP_PASSWORD, 15, 16),
        ("SMTP_PASSWORD=" + APP_PASSWORD.upper() + "42", 15, 18),
        ("- Gmail app password: " + GROUPED + " (for me@gmail.com)", 23, 19),
        ('app_password = "' + GROUPED + '"', 17, 19),
        ("- App password `" + GROUPED + "`", 17, 19),
        ("Passwort: " + APP_PASSWORD, 11, 16),
    ],
)
def test_a_random_password_of_letters_in_one_case_fires(line, column, length):
    (hit,) = hits("intro\n" + line + "\n")
    assert (hit.line, hit.column, hit.kind, hit.length) == (2, column, GENERIC, length)
    secret = line[column - 1 : column - 1 + length].replace(" ", "")
    assert hit.fingerprint == fingerprint(secret)  # grouped or not, one password, one fingerprint


def test_a_random_password_of_letters_in_a_url_fires():
    line = "SMTP_URL: smtp://me:" + APP_PASSWORD + "@smtp.gmail.com:587"
    assert [(h.column, h.kind) for h in hits(line)] == [(line.index(APP_PASSWORD) + 1, "password in URL")]


@pytest.mark.parametrize(
    "line",
    [
        "password: correcthorsebatterystaple",  # words run together
        "password: see the vault",
        "password: same with both keys",  # four words of four letters: not the grouped form
        "token: refreshtoken",
        "secret: notasecret",
        "api_key: yourapikeyhere",
        "password: changeme",
        "password: changemeplease",
        "password: placeholder",
        "auth: authorization",
        "api_key: getattribute",  # identifiers, file names
        "token: githubappinstallation",
        "auth: kubeconfig",
        "secret: docker-compose.yml",
        "password: supercalifragilistic",
        "password: Administrator",
        "password: qwhz mtkr",  # two groups are no app password
        "password: asdf ghjk qwer tyui",
    ],
)
def test_words_of_letters_in_one_case_do_not_fire(line):
    assert hits("x\n" + line + "\n") == []


def test_random_letters_are_told_from_words():
    """Over 2,000 random 16-letter passwords nearly all fire; English words
    run together (two to four, as a passphrase or an identifier) do not."""
    rng = random.Random(16)
    passwords = ["".join(rng.choice(LO) for _ in range(16)) for _ in range(2000)]
    caught = sum(bool(hits("password: " + p)) for p in passwords)
    assert caught >= 0.9 * len(passwords)
    words = ("correct horse battery staple refresh access token client secret deploy github gmail "
             "application password manager config settings default master server database backup "
             "monday summer winter dragon sunshine football welcome shadow freedom whatever "
             "attribute instance version develop production staging").split()
    phrases = {"".join(rng.sample(words, rng.randint(2, 4))) for _ in range(2000)}
    assert [p for p in phrases if hits("password: " + p)] == []


def test_a_quoted_value_with_a_separator_is_redacted_whole(make_store, cli):
    """The scanner reads `"Kq9Zt7mVx2;pLw8RsT4"` whole: the redaction of
    another rule's message that quotes it must hide all of it."""
    secret = "Kq9Zt7mVx2;pLw8RsT4"
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n",
                        "a.md": f"---\nname: a\ndescription: d\ntype: user\ncreated: 'db password=\"{secret}\"'\n---\nx\n"})
    result = cli("check", "--format", "json", store)
    assert [f["code"] for f in result.json()] == ["MEM004", "MEM601"]
    assert "pLw8RsT4" not in result.output and "Kq9Z…" in result.output


def test_report_redacts_frontmatter_values_it_quotes(make_store, cli):
    token = "ghp_" + rand(36)
    store = make_store({"MEMORY.md": "# M\n- [A](a.md) — a\n- [B](b.md) — b\n",
                        "a.md": f"---\nname: a\ndescription: d\ntype: project\ncreated: {token}\n---\nx\n",
                        "b.md": f"---\nname: b\ndescription: d\ntype: {token}\n---\nx\n"})
    text = cli("report", store).output
    assert token not in text and text.count("ghp\\_…(40 chars)") == 2  # (markdown escapes the _)


CONSUMER_KEY = "ck_" + rand(20)


@pytest.mark.parametrize(
    "line, secret",
    [
        # an arrow for the operator, as agents write in their notes
        ("- API key → " + VAL, VAL),
        ("OPENAI_API_KEY -> " + VAL, VAL),
        ("password ⇒ `" + VAL + "`", VAL),
        ("- Gateway token → `" + HEXVAL + "`", HEXVAL),
        ("- Composio consumer key fixed: ak_→" + CONSUMER_KEY, CONSUMER_KEY),  # old → new: the new one is set
        # a code span after the name, without ":" or "="
        ("`OPENAI_API_KEY` `" + VAL + "`", VAL),
        ("- Configured consumer key (`" + CONSUMER_KEY + "`) in openclaw.json", CONSUMER_KEY),
    ],
)
def test_arrows_and_code_spans_assign_too(line, secret):
    (hit,) = hits("x\n" + line + "\n")
    assert (hit.line, hit.column, hit.kind, hit.fingerprint) == (2, line.index(secret) + 1, GENERIC, fingerprint(secret))


@pytest.mark.parametrize(
    "line",
    [
        "- token → refresh → access (the OAuth flow)",
        "- Auth flow: login → token → callbackhandler → dashboard",
        "- password -> see the vault",
        "- Rotated the API key → done, old one revoked",
        "- `token` `refresh`",
        "- the key (`Ctrl+K`) opens search",
        "- Token count → " + rand(6, DG),
        "- Renamed secret_name → new_secret_name",
        "- API key (`OPENAI_API_KEY`) lives in 1Password",
        "- header `x-revalidate-key: $SIGNING_SECRET` → revalidatePath(\"/\")",  # what a code span leads to
    ],
)
def test_arrows_and_code_spans_in_prose_do_not_fire(line):
    assert hits("x\n" + line + "\n") == []


def test_generic_hit_fingerprints_the_value_only():
    (hit,) = hits('password = "' + VAL + '"')
    assert hit.fingerprint == fingerprint(VAL)


def test_aws_secret_access_key_when_assigned():
    secret = rand(40, B62 + "/+")
    for line in (
        "aws_secret_access_key = " + secret,
        "AWS_SECRET_ACCESS_KEY=" + secret,
        '"SecretAccessKey": "' + secret + '"',
    ):
        (hit,) = hits(line)
        assert hit.kind == "AWS secret access key"
        assert hit.column == line.index(secret) + 1


def test_vendor_token_assigned_to_secret_name_reported_once_as_vendor_kind():
    token = TOKENS["github_classic"][1]
    found = hits("GITHUB_TOKEN=" + token + "\ntoken: 'Bearer " + token + "'")
    assert [(h.line, h.kind) for h in found] == [(1, "GitHub token"), (2, "GitHub token")]


def test_secret_inside_value_of_non_secret_name_is_found():
    # "JSON:" takes the whole backtick span as its value; the password
    # assignment inside must still be seen.
    line = 'Add to the JSON: `{"password":"' + VAL + '", "role":"user"}`'
    found = hits(line)
    assert [(h.column, h.kind) for h in found] == [(line.index(VAL) + 1, GENERIC)]


def test_several_generic_hits_on_one_line():
    other = rand(20, B62)
    line = "user=bob password=" + VAL + " api_key=" + other
    found = hits(line)
    assert [h.column for h in found] == [line.index(VAL) + 1, line.index(other) + 1]


def test_password_in_url():
    pw = rand(20)
    line = "DATABASE_URL: postgres://app:" + pw + "@db.internal:5432/prod"
    found = hits(line)
    assert [(h.column, h.kind) for h in found] == [(line.index(pw) + 1, "password in URL")]


@pytest.mark.parametrize(
    "line",
    [
        # placeholders
        "api_key: <your-api-key>",
        'api_key = "<your-token>"',
        "token: xxxxxxxxxxxxxxxxxxxx",
        "password: ********************",
        "password: changeme",
        'client_secret: "CHANGEME_PLEASE_NOW"',
        "token: example-token-value-1",
        "secret: REDACTED",
        "api_key: sk-...",
        'api_key = "replace-with-real-key"',
        "password: dummy-password-123",
        "token: abc123def456ghi789",
        "api_key: 0000000000000000",
        "AUTH_TOKEN=...",
        "token: …",
        # env-var and secret-manager references
        "password: ${DB_PASSWORD}",
        "token: $GITHUB_TOKEN",
        "api_key: %API_KEY%",
        'token = os.environ["GITHUB_TOKEN"]',
        "apiKey: process.env.OPENAI_API_KEY",
        "password: {{ vault_db_password }}",
        "token: ${{ secrets.GH_PAT }}",
        "api_key: settings.OPENAI_API_KEY",
        "OPENAI_API_KEY=$(cat ~/.config/openai)",
        "password: op://Private/db/password",
        "secret: !vault |",
        "password_hash: $2b$12$" + "K" * 3 + "Qm",
        # ordinary words, paths, numbers
        "password: hunter2",
        "Token: stored in 1Password",
        "auth: required",
        "auth: oauth2-github-app",
        "token: my-service-account",
        "pwd: /home/agent/projects/memlint",
        "token_path: ~/.config/gh/hosts.yml",
        "max_tokens: 4096",
        "tokens_used: 153200",
        'tokenizer: "bert-base-uncased"',
        "auth_model: claude-3-5-sonnet-20241022",
        "auth: 2024-01-01T10:00:00Z",
        "design-tokens.json=컬러12+8팔레트+타이포12",
        "private_key_id: " + rand(40, HEX),
        "token_type: bearer",
        "auth_url: https://accounts.example.org/o/oauth2/auth",
        "password: correcthorsebatterystaple",
        # documented examples
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "password: postgres://user:password@localhost:5432/db",
        "url: postgres://postgres:postgres@localhost:5432/db",
        "url: https://user:${TOKEN}@github.com/org/repo.git",
        # keyword without assignment
        "The token " + rand(32) + " was rotated.",
        # two words that are not a secret's name together; a table of what tokens are
        "Connected account ID: `ca_yGwr2ocbcRZi`, auth config: `ac_g9okNGzmuXkZ`",
        "My key: " + rand(32),
        # a Google OAuth client id is public, under whatever name
        "- client_secret: 314159265358-5ivu0vhpinhjkrdcgcahh5is7ajafa7s",
        "client_id: 314159265358-5ivu0vhpinhjkrdcgcahh5is7ajafa7s.apps.googleusercontent.com",
        "| Token | Description |",
        "| Auth | " + rand(40, HEX) + " |",  # a table's short name cell: a commit, say
        "The deploy token is in 1Password: Deploy/GitHub",  # MEM601's own advice: a pointer
        "Keys live in Bitwarden: Infra/Prod-Keys",
        "| token | the `" + rand(4) + "` of the bot, in the vault |",
        # words in a label that are not a credential's name
        "- Phase 2 agents now pass `max_retries=" + rand(6) + "` to `run_agent`",  # "pass" the verb
        "- s3key: `project/pr_" + rand(12) + "/tool_" + rand(10) + "`",  # an object's key in a bucket
        "- Session key: agent:main:subagent:" + rand(12, HEX),  # an agent session's name
        "API key name: `" + rand(24) + "`",  # about the key, not the key
        "Token count in the prompt: " + rand(12),
        "Key commit: " + rand(10, HEX),
        "Primary key: `" + rand(16) + "`",
        "The public key: " + rand(32),
        # pointers, public values, ids and digests of secrets
        "- DB creds live in Secrets Manager: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-" + rand(6),
        "- Stripe publishable key: pk_live_" + rand(40),
        "- Mapbox public token: pk." + rand(40),
        "- AUTH0_DOMAIN=dev-" + rand(16, HEX) + ".us.auth0.com",
        "- refresh_token_id: " + rand(8, HEX) + "-" + rand(4, HEX) + "-" + rand(4, HEX) + "-" + rand(12, HEX),
        "- password_hash: " + rand(64, HEX),
        "- fingerprint of the token: " + rand(12, HEX),
        "- 10:42 key and build secret in id=" + rand(12),
        "PRIMARY_KEY=" + rand(20),  # a database's key, named so
        "密码：在1Password里",  # a pointer, in words
        "| **密码** | 设置密码 |",
        "Passwort: siehe Tresor",
    ],
)
def test_generic_negatives(line):
    assert hits("x\n" + line + "\n") == []



def test_a_table_column_headed_by_a_secret_name_fires_on_each_row():
    """| Bot | App ID | App Secret |: the header names the secret once, for every row below it."""
    first, second, third = rand(32), rand(32), rand(40, HEX)
    text = ("### Feishu apps\n"
            "| Bot | App ID | App Secret |\n"
            "|-----|:------:|------------|\n"
            f"| 太一 | cli_a9086d6b5779dcc1 | {first} |\n"
            f"| 知几 | cli_a90fc49a4b78dcd4 | `{second}` ✅ |\n"
            "| 山木 | cli_a93298c9b0789cc6 | <your-app-secret> |\n"
            "\n"
            f"after the table: {third}\n")
    found = hits(text)
    assert [(h.line, h.column, h.kind) for h in found] == [(4, 31, GENERIC), (5, 32, GENERIC)]
    assert [h.fingerprint for h in found] == [fingerprint(first), fingerprint(second)]


def test_a_value_both_a_row_and_a_column_name_as_secret_is_reported_once():
    value = rand(32)
    text = f"| Name | API Key |\n|---|---|\n| **Token** | {value} |\n"
    assert [(h.line, h.column) for h in hits(text)] == [(3, 15)]


@pytest.mark.parametrize(
    "text",
    [
        "| Token | Description |\n|---|---|\n| ghp_ | a GitHub personal access token |\n",  # what tokens are
        "| Name | Secret ID |\n|---|---|\n| prod | " + rand(32) + " |\n",  # names a secret, is none
        "| Name | Token count |\n|---|---|\n| prompt | " + rand(12) + " |\n",
        "| Service | Password |\n|---|---|\n| db | in 1Password |\n| api | `${API_PASSWORD}` |\n",
        "| Service | API Key |\n|---|---|\n| x | get_api_key_from_vault |\n",
        "| Service | Notes |\n|---|---|\n| x | " + rand(32) + " |\n",  # no secret named: a commit, an id
        "| API Key |\nnot a table: no delimiter row\n| " + rand(32) + " |\n",
        # headers about tokens and keys, not holding them
        "| Token pricing | Input $/M |\n|---|---|\n| gpt-4o-mini-2024-07-18 | 0.15 |\n",
        "| Tokens / model | Context |\n|---|---|\n| mixtral-8x7b-32768 | 32k |\n",
        "| Model | Token encoding |\n|---|---|\n| gpt | o200k_base |\n",
        "| Chain | Token address |\n|---|---|\n| eth | 0x" + rand(40, HEX) + " |\n",
        "| Map | Mapbox public token |\n|---|---|\n| x | pk." + rand(60) + " |\n",
        "| User | Token (hashed) |\n|---|---|\n| x | " + rand(64, HEX) + " |\n",
        # values that point at the secret, or name something else
        "| Token | Value |\n|---|---|\n| spacing-2xl | 48px |\n| font.size.h1x2 | 3rem |\n",  # design tokens
        "| Secret | Version |\n|---|---|\n| JWT_SIGNING_KEY_2026Q1 | 3 |\n",
        "| Service | Secret |\n|---|---|\n| aws | C:\\Users\\me\\.aws\\credentials |\n",
        "| Secret | Meaning |\n|---|---|\n| #api-key-rotation | docs |\n",
    ],
)
def test_table_columns_that_hold_no_secret_do_not_fire(text):
    assert hits(text) == []


@pytest.mark.parametrize(
    "header, cell, column",
    [
        ("| Bot | App Secret |\r", "| a | {} |\r", 7),  # CRLF line endings
        ("| Svc | Password |", '| a | "{}" |', 8),  # quoted
        ("| Svc | Authorization |", "| a | Bearer {} |", 14),  # after the scheme
        ("| Svc | API Keys |", "| a | {} |", 7),
        ("| Site | li_at cookie |", "| in | {} |", 8),
        ("| 服务 | 密钥 |", "| a | {} |", 7),
        ("| Bot | Access tokens |", "| a | {} |", 7),
        ("| Bot | Token (prod) |", "| a | `{}` |", 8),
    ],
)
def test_table_column_headers_that_name_a_secret(header, cell, column):
    value = rand(40)
    delimiter = "|---|---|" + ("\r" if header.endswith("\r") else "")
    text = "\n".join([header, delimiter, cell.format(value)]) + "\n"
    assert [(h.line, h.column, h.fingerprint) for h in hits(text)] == [(3, column, fingerprint(value))]


def test_a_value_that_spells_password_with_a_symbol_is_judged_as_a_password():
    """``{"password":"TempPass1!"}`` fires, so ``{"password": "TempPassword1!"}``
    does too: a "!" is in no name of a secret; names stay quiet."""
    for value in ("Temp" + "Pass1!", "Temp" + "Password1!", "New" + "Secret42!"):
        for text in ('{"password":"' + value + '"}', '{"password": "' + value + '"}'):
            assert [(h.column, h.kind) for h in hits(text)] == [(text.index(value) + 1, GENERIC)], text
    for text in ("password: my-secret-password", "token: refresh_token_value", "password: TempPassword1"):
        assert hits(text) == [], text


# --------------------------------------------------------------------------
# a login written as a pair: user, then password
# --------------------------------------------------------------------------

PAIR = "password of a user/password pair"
LOGIN_PW = rand(10) + "!!"  # a password as people choose them: a symbol at the end


@pytest.mark.parametrize(
    "text",
    [
        "- Credentials: admin / {}",
        "Credentials: admin/{}",
        '"credentials": "admin:{}"',
        "login: admin:{}",
        "- **SSH login:** admin / `{}`",
        "creds = root:{}",
        "| Authentication | admin / {} | XIQ login or LDAP |",  # a table row named so
        "Authorization: Basic admin:{}",
        "User/Password: admin/{}",
        "password: admin / {}",  # spaced: "admin" is no part of the password
        "| Device | IP | Login |\n|---|---|---|\n| sw1 | 10.0.0.2 | admin / {} |",  # a column headed so
        "| Device | Credentials |\n|---|---|\n| sw1 | admin/{} |",
        "| Name | Password |\n|---|---|\n| Credentials | admin/{} |",  # once, though the column reads it whole
        "### Test credentials\nme@gmail.com / {} → Group_A → VLAN 10",  # the lines under a heading
        "**Login:**\n\n- admin / {}",
    ],
)
def test_the_password_of_a_login_pair_fires_where_it_is(text):
    """The finding points at the password, and its fingerprint is the
    password's alone: the user name is no secret."""
    text = text.format(LOGIN_PW)
    line = next(i for i, row in enumerate(text.split("\n"), 1) if LOGIN_PW in row)
    column = text.split("\n")[line - 1].index(LOGIN_PW) + 1
    assert [(h.line, h.column, h.kind, h.fingerprint, h.length) for h in hits(text)] == [
        (line, column, PAIR, fingerprint(LOGIN_PW), len(LOGIN_PW))]


@pytest.mark.parametrize(
    "line",
    [
        "Credentials: docs/setup",
        "Login: docs/setup/guide",
        "Login: 2026/04/15",
        "Login: read/write",
        "auth: on/off",
        "Credentials: yes/no",
        "Auth: TCP/IP",
        "Login: client/server",
        "Credentials: https://portal.example.org/login",
        "Login: N/A",
        "Credentials: <user>/<password>",
        "Login: user/pass",
        "Credentials: admin/admin",
        "Login: admin / ***",
        "Login: admin / changeme123",
        "Login: admin / ${ADMIN_PASSWORD}",
        "Credentials: see 1Password / vault",
        "Credentials: 1Password / Infra-Prod-DB",  # where it is kept
        "### Test credentials\nadmin@example.org / " + rand(10) + "!!",  # a documentation example
        "Login: Google/Microsoft365",
        "| Authentication | OAuth2 / OIDC |",
        "| Auth | github/ClaudeCodeBot |",  # words run together: names, not a password
        "Login flow: admin / " + rand(10) + "!!",  # about the login, not it
        "login_url: admin/" + rand(10) + "!!",
        "## Credentials\n\nDocuments/setup-guide.pdf\nSee owner/RepoName for the rest.",
        # no login named: paths, repositories, products (the pair shape alone is not enough)
        "- SW1 — 192.0.2.28 — admin/" + rand(10) + "!!",
        "Forked owner/" + rand(12) + " for the login page.",
    ],
)
def test_pairs_that_are_no_login_do_not_fire(line):
    assert hits("x\n" + line + "\n") == []


def test_a_secret_found_once_is_reported_wherever_it_recurs_in_the_file():
    """The same password in prose below its table row: the same secret,
    with the same fingerprint (one allow-list entry covers both)."""
    prose = "2. The auth block (admin/" + LOGIN_PW + ") logs in"
    text = ("| Authentication | admin / " + LOGIN_PW + " |\n\n" + prose + "\n"
            "- replace " + LOGIN_PW + "x later\n")  # glued to more: another value
    assert [(h.line, h.column, h.fingerprint) for h in hits(text)] == [
        (1, 28, fingerprint(LOGIN_PW)), (3, prose.index(LOGIN_PW) + 1, fingerprint(LOGIN_PW))]
    assert hits(text, allow=frozenset({fingerprint(LOGIN_PW)})) == []


def test_a_session_cookie_fires():
    value = rand(150)
    assert [(h.line, h.column) for h in hits(f"- `li_at` cookie: `{value}`\n")] == [(1, 20)]
    assert hits("- Cookie file: `/root/.openclaw/cookies.txt`\n- cookie: session expired\n") == []

@pytest.mark.parametrize(
    "text",
    [
        # AWS's documented example access key id and secret
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "Use AKIAI44QH8DHBEXAMPLE in the docs.",
        # jwt.io's sample token
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # vendor-shaped placeholders
        "gh" + "p_" + "x" * 36,
        "gh" + "p_" + "1234567890abcdefghijklmnopqrstuvwxyz",
        "GITHUB_TOKEN=ghp_your_token_here",
        "xo" + "xb-your-bot-token-here",
        "xo" + "xb-000000000000-0000000000000-XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "sk" + "-ant-api03-...",
        "sk" + "-proj-" + "x" * 40,
        "sk" + "_live_" + "0" * 24,
        "AI" + "za" + "X" * 35,
        # vendor-prefix look-alikes in ordinary text
        "branch sk-long-feature-branch-name-for-the-memory-linter merged",
        "region ASIAPACIFICSOUTHEAST1 is not a key",  # 1 is not base32
        "see docs/task-" + rand(40) + ".md",  # "sk-" inside a word
    ],
)
def test_documented_examples_and_vendor_placeholders_do_not_fire(text):
    assert hits(text) == []


ORDINARY_MARKDOWN = """\
---
name: feedback_auth_rotation
description: How we rotate the gateway auth token
type: feedback
---

# Auth token rotation

The **token** lives in 1Password under `gateway/auth`; never paste it here.
Rotation happened in commit 3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c (see PR #412).
Session 123e4567-e89b-12d3-a456-426614174000 hit the rate limit at 14:02.

| Setting        | Value            |
|----------------|------------------|
| max_tokens     | 8192             |
| auth           | OAuth2 + PKCE    |
| password reset | self-service     |

- Secret scanning: enabled on the org.
- Password policy: 14 chars minimum, see https://wiki.internal/security/passwords.
- API key format: `sk-...` for OpenAI, `AIza...` for Google.
- Token budget: ~200k per session; tokenizer: cl100k_base.
- Keys: ed25519 preferred over RSA; `ssh-keygen -t ed25519 -C "agent@box"`.

```python
token = os.environ.get("GATEWAY_TOKEN")
client = Client(api_key=settings.api_key, timeout=30)
```
"""


def test_ordinary_markdown_does_not_fire():
    assert hits(ORDINARY_MARKDOWN) == []


def test_git_shas_and_uuids_in_prose_do_not_fire():
    text = "\n".join(
        f"Commit {rand(40, HEX)} fixed the auth bug; trace id {rand(8, HEX)}-{rand(4, HEX)}"
        f"-{rand(4, HEX)}-{rand(4, HEX)}-{rand(12, HEX)}; short sha {rand(7, HEX)}."
        for _ in range(200)
    )
    assert hits(text) == []


def test_base64_image_data_does_not_fire():
    # A realistic data URI: standard base64 never contains "_", "-" or ".",
    # and the token boundary checks keep prefixes inside it from matching.
    blob = "".join(random.Random(7).choices(B62 + "+/", k=400_000))
    text = "Screenshot:\n\n![dashboard](data:image/png;base64,iVBORw0KGgo" + blob + "==)\n"
    assert hits(text) == []


# --------------------------------------------------------------------------
# allow-listing
# --------------------------------------------------------------------------


def test_allow_comment_constant():
    assert ALLOW_COMMENT == "memlint-allow-secret"


def test_allow_comment_on_same_line():
    token = TOKENS["stripe_secret"][1]
    assert hits(token + "  <!-- memlint-allow-secret -->") == []
    assert hits("<!--memlint-allow-secret--> " + token) == []


def test_allow_comment_on_previous_line():
    token = TOKENS["stripe_secret"][1]
    assert hits("<!-- memlint-allow-secret -->\n" + token + "\n") == []
    assert hits("  <!-- memlint-allow-secret -->  \r\n" + token + "\r\n") == []


def test_allow_comment_only_covers_the_next_line():
    token = TOKENS["stripe_secret"][1]
    found = hits("<!-- memlint-allow-secret -->\n" + token + "\n" + token + "\n")
    assert [h.line for h in found] == [3]
    found = hits("<!-- memlint-allow-secret -->\n\n" + token + "\n")
    assert [h.line for h in found] == [3]


def test_allow_comment_with_other_text_on_previous_line_does_not_cover_next():
    token = TOKENS["stripe_secret"][1]
    found = hits("rotated today <!-- memlint-allow-secret -->\n" + token + "\n")
    assert [h.line for h in found] == [2]


def test_allow_comment_before_private_key_begin_line():
    body = rand(64, B62 + "+/")
    text = "<!-- memlint-allow-secret -->\n-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n"
    assert hits(text) == []


def test_allow_fingerprint():
    a = TOKENS["npm"][1]
    b = TOKENS["huggingface"][1]
    text = a + "\n" + b + "\n"
    both = hits(text)
    assert len(both) == 2
    remaining = hits(text, allow=frozenset({both[0].fingerprint}))
    assert [(h.line, h.kind) for h in remaining] == [(2, "Hugging Face token")]
    assert hits(text, allow=frozenset(h.fingerprint for h in both)) == []


# --------------------------------------------------------------------------
# never reveal the secret
# --------------------------------------------------------------------------

ALL_SECRETS = [tok for _, tok in TOKENS.values()] + [VAL, HEXVAL]


@pytest.mark.parametrize("secret", ALL_SECRETS)
def test_hit_never_contains_the_secret(secret):
    text = "note\ncredential = " + secret + "\n"
    found = hits(text)
    assert found
    for hit in found:
        rendered = [str(hit), repr(hit), *(str(v) for v in dataclasses.astuple(hit))]
        for piece in rendered:
            assert secret not in piece
            # not even a recognisable chunk of it
            for i in range(0, len(secret) - 12):
                assert secret[i : i + 12] not in piece


def test_secret_hit_is_frozen_and_str_is_useful():
    (hit,) = hits(TOKENS["npm"][1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.line = 2  # type: ignore[misc]
    assert str(hit) == f"1:1: npm token (fingerprint {hit.fingerprint})"


def test_fingerprint_shape_and_stability():
    fp = fingerprint("s3cr3t-value")
    assert re.fullmatch(r"[0-9a-f]{12}", fp)
    assert fp == fingerprint("s3cr3t-value")
    assert fp != fingerprint("s3cr3t-valuf")


@pytest.mark.parametrize(
    "value, expected",
    [
        ("AKIA" + "Z" * 16, "AKIA…(20 chars)"),
        ("x" * 100, "xxxx…(100 chars)"),
        ("abcdefghij", "ab…(10 chars)"),
        ("short", "…(5 chars)"),
        ("", "…(0 chars)"),
    ],
)
def test_redact(value, expected):
    assert redact(value) == expected


@pytest.mark.parametrize("secret", ALL_SECRETS)
def test_redact_never_shows_more_than_four_leading_chars(secret):
    shown = redact(secret).split("…")[0]
    assert len(shown) <= 4
    assert secret not in redact(secret)


# --------------------------------------------------------------------------
# ordering, line endings, misc
# --------------------------------------------------------------------------


def test_multiple_hits_ordered_by_position():
    g = TOKENS["google"][1]
    s = TOKENS["stripe_secret"][1]
    text = "a " + s + " b " + g + "\n\npassword: " + VAL + "\n" + TOKENS["aws_id"][1]
    found = hits(text)
    assert [(h.line, h.column, h.kind) for h in found] == [
        (1, 3, "Stripe secret key"),
        (1, 3 + len(s) + 3, "Google API key"),
        (3, 11, GENERIC),
        (4, 1, "AWS access key id"),
    ]


def test_crlf_line_endings():
    token = TOKENS["gitlab"][1]
    found = hits("first\r\nsecond " + token + "\r\n")
    assert [(h.line, h.column) for h in found] == [(2, 8)]


def test_scan_returns_iterator_and_empty_text():
    it = scan("")
    assert iter(it) is it
    assert list(it) == []


# --------------------------------------------------------------------------
# bounded running time on adversarial input
# --------------------------------------------------------------------------

MB = 1_000_000

ADVERSARIAL = {
    "letters": "a" * MB,
    "name then operator": "a" * MB + "=" + VAL,
    "repeated assignments": "password=" * (MB // 9),
    "chained assignments": "a=" * (MB // 2) + "password=" + VAL,
    "chained secret names": "password=" * (MB // 9) + VAL,
    "unterminated quote": 'token: "' + "x" * MB,
    "glued keywords": "token" * (MB // 5) + ": " + VAL,
    "aws prefixes": "AKIA" * (MB // 4),
    "github prefixes": "ghp_" * (MB // 4),
    "gitlab prefixes": "glpat-" * (MB // 6),
    "openai prefixes": "sk-" * (MB // 3),
    "anthropic body": "sk-ant-" + "a-" * (MB // 2),
    "slack body": "xoxb-" + "1-" * (MB // 2),
    "jwt pieces": ("eyJ" + "a" * 20 + ".") * (MB // 24),
    "begin headers": "-----BEGIN RSA PRIVATE KEY-----" * (MB // 31),
    "begin spaces": "-----BEGIN " + " " * MB,
    "keys without end": ("-----BEGIN PRIVATE KEY-----\n" + rand(64, B62) + "\n") * (MB // 93),
    "key body without end": "-----BEGIN PRIVATE KEY-----\n" + (rand(64, B62) + "\n") * (MB // 65),
    "url colons": "http://" + "a:" * (MB // 2),
    "url creds": "://a:b" * (MB // 6),
    "webhook prefixes": "hooks.slack.com/services/T" * (MB // 26),
    "telegram digits": "1" * MB + ":AA",
    "keyword words": "pass " * (MB // 5),
    "login names": "login: " * (MB // 7),
    "login pairs": "Login: admin / x " * (MB // 17),
    "login headings": "- Login:\n" * (MB // 9),
    "login headings and lines": "## Credentials\n" + "a / b\n" * (MB // 6),
    "base64": "".join(random.Random(3).choices(B62 + "+/", k=MB)),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_one_megabyte_line_is_fast(name):
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    for _ in scan(text):
        pass
    assert time.perf_counter() - start < 3.0


def test_many_real_hits_on_one_line_is_fast():
    text = ("password: '" + VAL + "' ") * 20_000  # ~0.75 MB, 20k hits
    start = time.perf_counter()
    found = hits(text)
    assert time.perf_counter() - start < 5.0
    assert len(found) == 20_000
    assert len({h.fingerprint for h in found}) == 1


def test_the_biggest_file_memlint_parses_is_scanned_in_time_in_proportion_to_its_size():
    """8 MB (MAX_FILE_BYTES: bigger files are reported, not read) of
    ordinary markdown costs about 8 times 1 MB: linear, where a regex that
    backtracks over the whole text costs 64 times. A ratio of the two, not a
    time: the same on a slow machine as on a fast one."""
    from memlint.store import MAX_FILE_BYTES

    unit = ORDINARY_MARKDOWN + "password: hunter2\nAuthorization: Bearer <token>\n"

    def seconds(size: int) -> float:
        text = unit * (size // len(unit))
        start = time.perf_counter()
        assert hits(text) == []
        return time.perf_counter() - start

    small, big = seconds(MAX_FILE_BYTES // 8), seconds(MAX_FILE_BYTES)
    assert big < 24 * small + 1.0, (small, big)


def test_a_message_repeated_across_findings_is_redacted_in_each():
    """Redaction scans each distinct message once: every finding that
    repeats a message quoting a token, and each file's own secrets in the
    same words, are still redacted."""
    from memlint.finding import Finding
    from memlint.redaction import redact_findings

    token, own = "ghp_" + rand(36), "Zq8" + rand(17)
    message = f"quotes {token} and {own}"
    findings = [Finding(path, 1, 1, "MEM004", "frontmatter-date", "error", message) for path in ("a.md", "b.md", "c.md")]
    redacted = redact_findings(findings, lambda path: [own] if path == "b.md" else [])
    assert [token in f.message for f in redacted] == [False, False, False]
    assert [own in f.message for f in redacted] == [True, False, True]  # only b.md holds it as a secret
