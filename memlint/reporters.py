"""Turn findings into text: one function per output format."""
from __future__ import annotations

import json
import re
from json.encoder import encode_basestring
from typing import Callable, Sequence
from urllib.parse import quote

from memlint import __version__
from memlint.finding import Finding

DOCS_URL = "https://github.com/memlint/memlint/blob/main/README.md#what-it-checks"  # the rules table


# Control characters, the Unicode line and paragraph separators (YAML and
# some viewers break lines there) and a name's bytes that are not UTF-8.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(value: str) -> str:
    """Control characters escaped: a file name holding a newline or a terminal
    escape sequence must not split a finding or drive the terminal."""
    return _CONTROL.sub(lambda m: repr(m.group(0))[1:-1], value)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def json_text(value, *, indent: int | None = 2) -> str:
    """JSON, non-ASCII kept as it is; a file name's bytes that are not UTF-8
    (lone surrogates) written as \\udcXX escapes, so the text is always
    valid UTF-8, on stdout as in a file."""
    return _escaped_surrogates(json.dumps(value, indent=indent, ensure_ascii=False))


def _escaped_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _SURROGATE.search(text) else text


def text(findings: Sequence[Finding], rules=()) -> str:
    # path:line:column: as compilers write it; a finding on a whole file or
    # line has no column (0), and none is written (editors read `:1:0:` as wrong)
    lines = [
        f"{printable(f.path)}:{f.line}:{f'{f.column}:' if f.column else ''} {f.code} {printable(f.message)} "
        f"[{f.name}{'' if f.severity == 'error' else ', warning'}]"
        for f in findings
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def json_report(findings: Sequence[Finding], rules=()) -> str:
    """``json_text`` of the findings as dicts, written by hand: the json
    module indents in pure Python, 4x slower on a big store's thousands of
    findings, and these are flat records of strings and integers. A test
    checks the text is json_text's, byte for byte."""
    findings = list(findings)
    # (exactly int and str: a bool, None or a subclass is written as the json module writes it)
    if not all(type(f.line) is int is type(f.column) and str is type(f.path) is type(f.code) is type(f.name)
               is type(f.severity) is type(f.message) for f in findings):
        return json_text([f.to_dict() for f in findings]) + "\n"  # (a value of another type: as json writes it)
    if not findings:
        return "[]\n"
    quote = encode_basestring  # the json module's own string encoder (C), as json_text writes non-ASCII
    rows = [f'  {{\n    "path": {quote(f.path)},\n    "line": {f.line},\n    "column": {f.column},\n'
            f'    "code": {quote(f.code)},\n    "name": {quote(f.name)},\n    "severity": {quote(f.severity)},\n'
            f'    "message": {quote(f.message)}\n  }}' for f in findings]
    return _escaped_surrogates("[\n" + ",\n".join(rows) + "\n]") + "\n"


def _escape_data(value: str) -> str:
    # % first; then every control character (a terminal escape, a non-UTF-8
    # byte kept as a surrogate) percent-encoded, as GitHub's own are: seen, never run
    value = value.replace("%", "%25")
    return _CONTROL.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8", "surrogateescape")), value) \
        if _CONTROL.search(value) else value


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding], rules=()) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    out = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        props = [f"file={_escape_property(f.path)}"]
        if f.line:
            props.append(f"line={f.line}")
            if f.column:
                props.append(f"col={f.column}")
        props.append(f"title={_escape_property(f'{f.code} {f.name}')}")
        out.append(f"::{level} {','.join(props)}::{_escape_data(f.message)}")
    return "\n".join(out) + ("\n" if out else "")


# GitHub code scanning takes rule descriptions of at most 1,024 characters.
_DESCRIPTION_LIMIT = 1024


def _bounded(text: str) -> str:
    """``text``, or as many of its paragraphs as fit in _DESCRIPTION_LIMIT
    (the first one cut at a word, with an ellipsis, if even it does not)."""
    if len(text) <= _DESCRIPTION_LIMIT:
        return text
    kept = ""
    for paragraph in text.split("\n\n"):
        longer = f"{kept}\n\n{paragraph}" if kept else paragraph
        if len(longer) > _DESCRIPTION_LIMIT:
            break
        kept = longer
    if not kept:
        kept = text[:_DESCRIPTION_LIMIT - 1].rsplit(" ", 1)[0] + "…"
    return kept


def sarif(findings: Sequence[Finding], rules=()) -> str:
    """SARIF 2.1.0 for GitHub code scanning: relative URIs, rule metadata."""
    from memlint.rules import documentation

    rule_list = list(rules)
    index = {r.CODE: i for i, r in enumerate(rule_list)}
    driver_rules = []
    for rule in rule_list:
        doc = documentation(rule)
        summary = doc.splitlines()[0] if doc else rule.NAME
        driver_rules.append(
            {
                "id": rule.CODE,
                "name": rule.NAME,
                "shortDescription": {"text": _bounded(summary)},
                "fullDescription": {"text": _bounded(doc or summary)},  # the whole text is the help's
                "helpUri": f"{DOCS_URL}",
                "help": {"text": doc or summary},
                "defaultConfiguration": {"level": "error" if rule.SEVERITY == "error" else "warning"},
                "properties": {"tags": list(getattr(rule, "TAGS", ()))},
            }
        )
    results = []
    for f in findings:
        # SARIF wants a URI reference: a space or an ä in a file name is
        # percent-encoded. A byte that is not UTF-8 becomes U+FFFD: GitHub's
        # upload decodes every URI as UTF-8, and one it cannot fails the
        # whole upload (the finding then names no file it can show).
        name = f.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        location = {"artifactLocation": {"uri": quote(name, safe="/"), "uriBaseId": "%SRCROOT%"}}
        # SARIF takes a location without a region as the whole file, but GitHub code scanning wants
        # region.startLine: without one, upload-sarif computes no fingerprint for the result (its alert
        # is not matched across runs) and the alert is not placed in the file; a whole-file finding sits on line 1
        region = {"startLine": f.line or 1}
        if f.line and f.column:
            region["startColumn"] = f.column
        location["region"] = region
        result = {
            "ruleId": f.code,
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": location}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "memlint",
                        "version": __version__,
                        "informationUri": "https://github.com/memlint/memlint",
                        "rules": driver_rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
                # memlint counts columns in characters; a reader not told so counts UTF-16
                # units, one more for each emoji (a 🔴 priority) before the column
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json_text(doc) + "\n"


REPORTER_BY_NAME: dict[str, Callable[..., str]] = {
    "text": text,
    "json": json_report,
    "github": github,
    "sarif": sarif,
}
