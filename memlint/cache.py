"""What memlint computed from a store, kept for the next run, keyed by git blob ids.

Kept per store, under ``.git/memlint`` (the user cache folder outside a
repository; ``memlint.statedir``):

- per file content, by its git blob id (sha1 of ``blob <size>\\0`` + bytes:
  the id ``git ls-files -s`` gives a tracked file, so unchanged files are
  never read): the parse (``memlint.markdown.Parsed``) and what is computed
  from the content alone (fingerprints, schema and secret findings: the rules'
  ``content_memo``), in 16 shard files,
  so a run that changed a few files rewrites a few shards; of a file in
  which MEM601 finds a secret, only that scan's result (the kind and a
  fingerprint) is kept, never the text;
- the git history replay at the three commits most recently used
  (``memlint.history``), one file each: the one at HEAD reused, else one at
  an ancestor of HEAD extended with only the new commits;
- whole-store values a rule or view builds on in the next run (``single``):
  the near-duplicate pairs (``memlint.fingerprint.NearMemo``), the link
  graph and wiki names (``memlint.graph.LinksMemo``), MEM404's answers at
  HEAD (``memlint.gitdates``), each path's role by the globs
  (``memlint.store``), the commits ``health`` reads as sessions at HEAD and
  which paths each only wrote dates to (``memlint.sessions``);
- the findings of a whole check, one file each for the eight most recently
  used, reused only when every input is the same:
  the files and their blob ids, HEAD and the git index, the configuration,
  the options, the date, memlint's own code, and each path the link graph
  looked up that the file list does not cover.

The ``memlint`` program writes what a run added after its report is out,
in a process of its own it does not wait for (as ``git gc --auto`` does):
the hook or the user goes on at once. That process holds a lock on the
folder's ``lock`` file while it writes, and the next run waits for it
(``memlint.deferred``) before it reads, so it finds the cache whole.
memlint used as a library writes at once.

Every value is a pure function of its key, so two runs at once cannot
poison each other: each file is replaced whole (temp file + rename) and
starts with a header (format, memlint's code version, length, CRC32). A file
that is truncated, corrupt, from another version or unreadable is ignored
(and rewritten when this run has something to add), never trusted. A cache
folder that cannot be written is simply not used. ``--no-cache`` or
``MEMLINT_NO_CACHE=1`` bypasses all of it.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import os
import pickle
import re
import stat
import threading
import zlib
from pathlib import Path

from memlint import deferred, gitrun

FORMAT = 1
MAGIC = b"memlint-cache"


class MISSING:
    """No value. A class rather than an ``object()``: pickle stores a class by
    its name, so a MISSING a forked child sends back is this very one."""


SECRET_KINDS = "secrets:"  # the kinds of secret scans, which hold no secret: MEM601's (secret_in_memory.content_memo)
SCANNED = "secrets:scanned"  # and the cache's own, of a text MEM601 did not scan: [True] for a secret found
LOCAL_KINDS = "local:"  # the local rules' findings; a shard keeps only the kind this run used (``local_kind``)
_MAX_FINDINGS = 8  # results kept (pre-commit runs several hooks, each its own selection)
_HISTORIES = 3  # history replays kept per store: the least recently used go


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (``git hash-object`` semantics)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """memlint's version and a digest of its installed files (name, size,
    mtime): a cache written by other code, even an edited checkout, is not used."""
    from memlint import __version__

    package = Path(__file__).resolve().parent
    h = hashlib.blake2b(f"{__version__}\0{FORMAT}".encode(), digest_size=12)
    for folder, dirs, files in sorted(os.walk(package)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{os.path.relpath(os.path.join(folder, name), package)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def disabled() -> bool:
    return os.environ.get("MEMLINT_NO_CACHE", "") not in ("", "0")


def _meant_writable(path: Path) -> bool:
    """Whether the owner's write bit is set (and the folder exists)."""
    try:
        return bool(os.stat(path).st_mode & 0o200)
    except OSError:
        return False


# --------------------------------------------------------------------------- files


def _read(path: Path):
    """The value stored at ``path``, or MISSING if absent, damaged or foreign."""
    try:
        # O_NONBLOCK: a FIFO planted in the folder must not hang the run (a hook would block every commit)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return MISSING
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read()
        finally:
            os.close(fd)
    except OSError:
        return MISSING
    cut = data.find(b"\n")
    header, payload = data[:cut], memoryview(data)[cut + 1:]  # a view: the payload is megabytes
    try:
        magic, fmt, version, length, crc = header.split(b" ")
        if (magic != MAGIC or int(fmt) != FORMAT or version.decode() != code_version()
                or int(length) != len(payload) or int(crc) != zlib.crc32(payload)):
            return MISSING
        return unpickle(payload)
    except Exception:  # noqa: BLE001 - whatever is wrong with it, it is not trusted
        return MISSING


_gc_lock = threading.Lock()
_gc_pauses = 0  # unpickles under way (the history thread loads while the main thread does)
_gc_was_enabled = False


def unpickle(payload: bytes):
    """``pickle.loads`` with the cycle collector paused: the cache holds
    millions of small objects, none in a cycle, and the collector's passes
    over them while they load cost a third of the load (10,000 files). The
    last of overlapping loads restores the collector as the first found it."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        return pickle.loads(payload)
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def _prune(folder: Path, pattern: str, keep: int) -> None:
    """Remove the files matching ``pattern`` but the ``keep`` most recently used."""
    try:
        found = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    for old in found[keep:]:
        try:
            old.unlink()
        except OSError:
            pass


def _read_and_touch(path: Path):
    """``_read``, marking the file as just used (pruning drops the least recently used)."""
    value = _read(path)
    if value is not MISSING:
        try:
            os.utime(path)
        except OSError:
            pass
    return value


def _write(path: Path, value) -> None:
    """Replace ``path`` whole (temp file + rename); a failure leaves it as it was."""
    payload = pickle.dumps(value, protocol=5)
    header = b" ".join((MAGIC, str(FORMAT).encode(), code_version().encode(),
                        str(len(payload)).encode(), str(zlib.crc32(payload)).encode()))
    from memlint.atomic import write_bytes_atomic

    try:
        write_bytes_atomic(path, header + b"\n" + payload, durable=False, own_file=True)
    except OSError:
        pass  # a cache that cannot be written is only slower next time


# --------------------------------------------------------------------------- git


def git_state(repo_root: Path, prefix: str, meanwhile=None, attributes: list[str] = (),
              cache: "StoreCache | None" = None) -> tuple[dict[str, str], str, str | None, frozenset[str]] | None:
    """({repo-relative path: blob id} of the regular files under ``prefix`` whose
    bytes on disk are that blob, a digest of HEAD, shallowness and the whole
    index, HEAD's commit or None before the first, the paths of those whose
    length was not checked), or None when git cannot tell (not a repository,
    git missing).

    A file's index blob id is its id on disk only when git tracks it, merged,
    unchanged by git's own stat checks (``diff-files``), neither marked
    assume-unchanged or skip-worktree (git then trusts the disk blindly), as
    long on disk as the blob (``_same_size``: line endings converted at a
    checkout, the index LF and the disk CRLF, go unseen by git, even once
    the setting that converted them is gone), and never where a filter,
    ident or working-tree-encoding attribute may change anything. Files left
    out are read and hashed.

    Four git calls run at once: ``ls-files -s -v --debug`` (the index, with
    its flags and the size each file had when git last looked),
    ``diff-files``, ``rev-parse`` (HEAD) and ``config`` (what may convert).
    ``meanwhile()``, if given, is called while they run (once, whatever
    happens); ``attributes``, the ``.gitattributes`` files it found in the
    folder (git reads untracked ones too), is read after it. ``cache``, if
    given, keeps the blobs' lengths (``_same_size``). On a first run (a
    cache that holds nothing by blob id, and no lengths) git is not asked
    for them: every file is then read anyway, and ``Store._read_files``
    checks each blob id against the bytes read (the last of those paths)."""
    spec = ["--", prefix] if prefix else []
    commands = {
        "index": ["ls-files", "-s", "-v", "-z", "--debug", "--full-name"],
        "changed": ["diff-files", "--name-only", "-z", *spec],
        "head": ["rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD"],
        "config": ["config", "-z", "--get-regexp", r"^core\.(autocrlf|attributesfile)$"],
    }
    procs = {}
    try:
        for name, args in commands.items():
            procs[name] = gitrun.popen(repo_root, args)
    except OSError:
        for proc in procs.values():  # the ones that did start are not left behind
            proc.kill()
            proc.wait()
        if meanwhile is not None:
            meanwhile()
        return None
    try:
        if meanwhile is not None:
            meanwhile()
    finally:  # even when meanwhile failed: no git process is left behind
        out = {name: proc.communicate()[0] for name, proc in procs.items()}
    if procs["index"].returncode or procs["changed"].returncode or procs["config"].returncode not in (0, 1):
        return None
    changed = {os.fsdecode(p) for p in out["changed"].split(b"\0") if p}
    under = prefix + "/" if prefix else ""
    blobs: dict[str, str] = {}
    recorded: dict[str, int] = {}  # path -> its size when git last looked (unchanged since: its size now)
    listed = []
    index = []  # the entries without their stat lines: the digest must not change when only a file's time does
    for path, meta, size, _, raw in index_records(out["index"]):
        listed.append(path)
        index.append(raw)
        if not path.startswith(under) or path in changed:
            continue
        tag, mode, blob, stage = meta.split(" ")
        if tag == "H" and stage == "0" and mode in ("100644", "100755"):
            blobs[path], recorded[path] = blob, size
    conversion = _conversion(repo_root, out["config"], listed, prefix, attributes) if blobs else None
    unchecked: frozenset[str] = frozenset()
    if conversion is not None and conversion != "eol":
        blobs = {}
    elif blobs and cache is not None and _first_run(cache):
        unchecked = frozenset(blobs)
    elif blobs:
        # Line endings converted at a checkout under a setting since removed
        # (core.autocrlf, an eol attribute) leave the disk CRLF and the index
        # LF, and git sees no change: whatever the settings are now, a file
        # must be as long as its blob.
        blobs = _same_size(repo_root, blobs, recorded, cache)
    digest = hashlib.blake2b(out["head"] + b"\0" + b"\0".join(index), digest_size=16).hexdigest()
    head = out["head"].split()[1:2] if procs["head"].returncode == 0 else []
    return blobs, digest, head[0].decode("ascii") if head else None, unchecked


def _first_run(cache: "StoreCache") -> bool:
    """Whether the cache holds no blob's length and nothing by blob id: a
    run that reads every file, where a blob id is checked against the bytes
    read (hashing them costs about what git's `cat-file` takes to give the
    lengths, but on both cores, and not before the parsing can start)."""
    known = cache.single("blob-sizes")
    return not (isinstance(known, dict) and known) and not cache.holds_blobs()


def replacements(repo_root: Path) -> str:
    """A digest of what makes ``git log`` show other commits than HEAD's id
    says (``git replace`` refs, grafts, the variables that switch them), or
    "" when there is none: a history or findings kept at HEAD hold only with
    it. Read from files, no git call: most repositories have none of it."""
    from memlint.statedir import common_dir

    parts = [f"{name}={os.environ[name]}".encode() for name in
             ("GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE") if name in os.environ]
    common = common_dir(repo_root)
    if common is None:
        return hashlib.blake2b(b"\0".join(parts), digest_size=8).hexdigest() if parts else ""
    base = os.environ.get("GIT_REPLACE_REF_BASE") or "refs/replace/"
    folder = common / base
    if folder.is_dir():
        for top, _, names in sorted(os.walk(folder)):
            for name in sorted(names):
                try:
                    parts.append(f"{top}/{name}".encode() + b" " + Path(top, name).read_bytes())
                except OSError:
                    parts.append(f"{top}/{name}".encode())
    for extra in ("packed-refs", "info/grafts", "reftable/tables.list"):
        try:
            data = (common / extra).read_bytes()
        except OSError:
            continue
        if extra == "packed-refs":
            if base.encode() not in data:  # one C-speed scan: a big packed-refs seldom holds any
                continue
            data = b"\n".join(line for line in data.split(b"\n") if base.encode() in line)
        elif extra.startswith("reftable"):  # refs in binary tables: ask git for the replace refs
            _, data, _ = gitrun.run(repo_root, ["for-each-ref", "--format=%(refname) %(objectname)", base])
        if data:
            parts.append(extra.encode() + b"\0" + data)
    if parts:  # there are replacements: whether git uses them is a setting too
        _, data, _ = gitrun.run(repo_root, ["config", "--get", "core.useReplaceRefs"])
        parts.append(b"core.useReplaceRefs=" + data.strip())
    return hashlib.blake2b(b"\0".join(parts), digest_size=8).hexdigest() if parts else ""


# Attributes that make git change a file's bytes between the index and the
# disk: line endings only (the first), or anything at all (the second).
_EOL_ATTRIBUTES = re.compile(rb"(?<![\w-])(?:text|eol|crlf)(?![\w-])")
_OTHER_ATTRIBUTES = re.compile(rb"(?<![\w-])(?:filter|ident|working-tree-encoding)(?![\w-])")


def _conversion(repo_root: Path, config: bytes, listed: list[str], prefix: str = "",
                attributes: list[str] = ()) -> str | None:
    """How git may store a file's bytes other than they are on disk: None
    (it does not), "eol" (line endings: ``core.autocrlf`` on, or a text, eol
    or crlf attribute), or "any" (a filter, ident or working-tree-encoding
    attribute). The attributes files git reads are searched: the
    repository's (tracked, and on disk in each folder from the top to
    ``prefix`` and in ``attributes``), ``info/attributes``, the user's and
    the system's. Patterns are not matched: naming one is enough."""
    from memlint.statedir import git_dir

    found = None
    sources = [repo_root / path for path in listed if path == ".gitattributes" or path.endswith("/.gitattributes")]
    folders = prefix.split("/") if prefix else []
    # read from the disk even when untracked: the folders down to the store's, and those in it
    sources += [repo_root.joinpath(*folders[:depth], ".gitattributes") for depth in range(len(folders) + 1)]
    sources += map(Path, attributes)
    for item in config.split(b"\0"):
        key, sep, value = item.partition(b"\n")
        if key == b"core.autocrlf" and _git_true(value, sep):
            found = "eol"
        if key == b"core.attributesfile" and value.strip():
            sources.append(Path(os.path.expanduser(os.fsdecode(value.strip()))))
    base = git_dir(repo_root)
    if base is not None:
        if base.parent.name == "worktrees":  # a linked worktree: info/ is the main repository's
            base = base.parent.parent
        sources.append(base / "info" / "attributes")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    sources += [Path(xdg, "git", "attributes"), Path("/etc/gitattributes")]
    for source in dict.fromkeys(sources):
        try:
            # a regular file only (a FIFO would block the read forever); in the
            # work tree not a symbolic link, which git does not follow there either
            in_work_tree = repo_root in source.parents and not (base is not None and base in source.parents)
            if not stat.S_ISREG(os.stat(source).st_mode) or (in_work_tree and source.is_symlink()):
                continue
            data = source.read_bytes()
        except OSError:
            continue
        for line in data.splitlines():
            if line.lstrip().startswith(b"#"):
                continue
            if _OTHER_ATTRIBUTES.search(line):
                return "any"
            if _EOL_ATTRIBUTES.search(line):
                found = "eol"
    return found


def _git_true(value: bytes, given: bytes) -> bool:
    """A git boolean setting's truth (``input`` counts, for core.autocrlf): a
    bare key is true, an empty value false; yes/on/true or a nonzero number."""
    value = value.strip().lower()
    if not given:
        return True
    return value in (b"true", b"yes", b"on", b"input") or value.lstrip(b"-").isdigit() and int(value) != 0


INTENT_TO_ADD = 1 << 29  # git's flag of an entry only intended to be added (`git add -N`): not in a commit


def index_records(listing: bytes):
    """(path, "[tag ]mode blob stage", size git last saw on disk or -1, flags
    or -1, the entry's "META\\tPATH" bytes) of each entry of ``ls-files -s
    -z --debug`` (``-v`` adds the tag): each "META\\tPATH\\0" is followed by
    git's five stat lines, the last "  size: N\\tflags: F\\n"."""
    chunks = listing.split(b"\0")
    head = chunks[0]
    for chunk in chunks[1:]:
        lines = chunk.split(b"\n", 5)  # a path may hold a newline: only the five stat lines are split off
        meta, _, raw = head.partition(b"\t")
        stat = lines[4] if len(lines) == 6 else b""
        if raw:
            size, flags = -1, -1
            if stat.startswith(b"  size: "):
                size_text, _, flag_text = stat[8:].partition(b"\tflags: ")
                size = int(size_text) if size_text.isdigit() else -1
                try:
                    flags = int(flag_text, 16)
                except ValueError:
                    pass
            yield os.fsdecode(raw), meta.decode("ascii"), size, flags, head
        head = lines[5] if len(lines) == 6 else chunk


def _same_size(repo_root: Path, blobs: dict[str, str], recorded: dict[str, int],
               cache: "StoreCache | None" = None) -> dict[str, str]:
    """Those of ``blobs`` whose file on disk is as long as the blob. Where git
    may only change line endings and sees no change, a file of the blob's
    length holds the blob's bytes: a CRLF checkout, or a CRLF edit that git
    cleans back to the blob, is longer by a byte a line. A file git saw no
    change in is as long as the index says it was (``recorded``); a blob's
    length never changes, so ``cache`` keeps them, and git is asked
    (``cat-file --batch-check``) only for blobs not seen before."""
    known = cache.single("blob-sizes") if cache is not None else None
    known = known if isinstance(known, dict) else {}
    missing = {blob for blob in blobs.values() if blob not in known}
    if missing:
        feed = "".join(blob + "\n" for blob in sorted(missing)).encode("ascii")
        try:
            status, out, _ = gitrun.run(repo_root, ["cat-file", "--batch-check=%(objectname) %(objectsize)"], stdin=feed)
        except OSError:  # git could not start: trust nothing
            return {}
        if status:
            return {}
        sizes = dict(known)
        for line in out.decode("ascii", "replace").splitlines():
            blob, _, length = line.partition(" ")
            if length.isdigit():
                sizes[blob] = int(length)
        if cache is not None:  # kept for the blobs of this index only: it does not grow
            cache.set_single("blob-sizes", {blob: sizes[blob] for blob in set(blobs.values()) if blob in sizes})
        known = sizes
    return {path: blob for path, blob in blobs.items() if recorded.get(path, -1) == known.get(blob, -2)}


# --------------------------------------------------------------------------- the cache


class StoreCache:
    """The cache of one store. Values are read lazily and written by ``save``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._shards: dict[str, dict[str, dict]] = {}
        self._dirty: set[str] = set()
        self._live: set[str] = set()  # blob ids of this run: other entries are dropped when a shard is rewritten
        self._singles: dict[str, object] = {}
        self._histories: dict[tuple[str, str], object] = {}  # to write: (key, commit) -> History
        self._dirty_singles: set[str] = set()
        self._findings: dict[str, object] = {}  # to write: findings key -> value
        # When a list, each change (method name, arguments) is added to it: a
        # forked child's, sent back to the parent, which saves the cache.
        self.journal: list | None = None
        self._local_kind: str | None = None  # the local rules' kind this run used (``use_local_kind``)

    @classmethod
    def open(cls, repo_root: Path, store_dir: Path) -> "StoreCache | None":
        """The store's cache, or None: switched off, or a store (or its .git)
        made read-only, where memlint writes nothing at all (its permission
        bits are read, not just tried: root writes through them), or a
        folder that cannot be written."""
        if disabled():
            return None
        from memlint.statedir import git_dir, state_dir

        base = git_dir(repo_root)
        if not _meant_writable(store_dir) or (base is not None and not _meant_writable(base)):
            return None
        try:
            folder = state_dir(repo_root, store_dir)
        except OSError:
            return None
        if not os.access(folder, os.W_OK):
            return None
        deferred.wait_for_writer(folder)
        return cls(folder)

    # -- values computed from one file's content
    def _shard(self, blob: str) -> dict[str, dict]:
        key = blob[0]
        shard = self._shards.get(key)
        if shard is None:
            shard = _read(self.folder / f"blobs-{key}.pickle")
            shard = shard if isinstance(shard, dict) else {}
            self._shards[key] = shard
        return shard

    def holds_blobs(self) -> bool:
        """Whether an earlier run kept values by blob id here (without reading them)."""
        try:
            return any(name.startswith("blobs-") for name in os.listdir(self.folder))
        except OSError:
            return False

    def get(self, kind: str, blob: str, default=MISSING):
        self._live.add(blob)
        return self._shard(blob).get(kind, {}).get(blob, default)

    def put(self, kind: str, blob: str, value) -> None:
        self._live.add(blob)
        self._shard(blob).setdefault(kind, {})[blob] = value
        self._dirty.add(blob[0])
        if self.journal is not None:
            self.journal.append(("put", (kind, blob, value)))

    def table(self, kind: str, blobs) -> dict:
        """{blob: value} of ``kind`` for those of ``blobs`` the cache holds:
        one lookup per shard, not per blob (``get`` for thousands)."""
        blobs = set(blobs)
        self._live.update(blobs)
        table: dict = {}
        for key in {blob[0] for blob in blobs}:
            table.update(self._shard(key).get(kind, ()))
        return table

    def use_local_kind(self, kind: str) -> None:
        """Note the kind of local-rule findings this run used: a shard that
        is written keeps it and drops the others (of another day or configuration)."""
        self._local_kind = kind
        if self.journal is not None:
            self.journal.append(("use_local_kind", (kind,)))

    def memo(self, kind: str, blob: str, compute):
        value = self.get(kind, blob)
        if value is MISSING:
            value = compute()
            self.put(kind, blob, value)
        return value

    # -- the history replay at recent commits, one file each
    def _history_file(self, key: str, head: str) -> Path:
        digest = hashlib.blake2b(key.encode("utf-8", "surrogateescape"), digest_size=6).hexdigest()
        return self.folder / f"history-{digest}-{head}.pickle"

    def histories(self, key: str) -> dict:
        """{commit: function loading the History kept at it}, newest first."""
        pattern = self._history_file(key, "*").name
        try:
            found = sorted(self.folder.glob(pattern), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        except OSError:
            return {}
        prefix, suffix = pattern.split("*")
        return {p.name[len(prefix):-len(suffix)]: functools.partial(_read_and_touch, p) for p in found}

    def put_history(self, key: str, head: str, value) -> None:
        self._histories[(key, head)] = value

    # -- whole-store values: findings
    def single(self, name: str):
        if name not in self._singles:
            self._singles[name] = _read(self.folder / f"{name}.pickle")
        return self._singles[name]

    def set_single(self, name: str, value) -> None:
        self._singles[name] = value
        self._dirty_singles.add(name)
        if self.journal is not None:
            self.journal.append(("set_single", (name, value)))

    # -- whole-store values: findings, one file per key (a run reads only the
    # one it may reuse, and writes only its own)
    def _findings_file(self, key: str) -> Path:
        return self.folder / f"findings-{key}.pickle"

    def findings(self, key: str):
        value = _read_and_touch(self._findings_file(key))
        return None if value is MISSING else value

    def put_findings(self, key: str, value) -> None:
        self._findings[key] = value

    def has_changes(self) -> bool:
        """Whether ``save`` has anything to write."""
        return bool(self._dirty or self._dirty_singles or self._histories or self._findings)

    def save(self, *, share=None) -> None:
        """Write what this run added, or, in the ``memlint`` program, leave
        it to be written after the report (``memlint.deferred``). Shards keep
        only the blobs this run saw. ``share`` (memlint.store.share_out), when given, shares the
        pickling with a second process (each file is written whole, by one of them)."""
        if not deferred.leave(self, self.folder, functools.partial(self._save_now, share)):
            self._save_now(share)

    def _save_now(self, share=None) -> None:
        writes = [functools.partial(_write, self._history_file(key, head), value)
                  for (key, head), value in self._histories.items()]  # the biggest first
        writes += [functools.partial(self._write_shard, key) for key in sorted(self._dirty)]
        writes += [functools.partial(_write, self.folder / f"{name}.pickle", self._singles[name])
                   for name in sorted(self._dirty_singles)]
        writes += [functools.partial(_write, self._findings_file(key), value) for key, value in self._findings.items()]
        if share is not None and len(writes) > 1:
            # Should this process be interrupted, the child finishes its files.
            share(len(writes), lambda i: writes[i](), stop_child=False)
        else:
            for write in writes:
                write()
        for key in {key for key, _ in self._histories}:
            # Keep the newest few: enough for a reset, an amend or a branch switch.
            _prune(self.folder, self._history_file(key, "*").name, _HISTORIES)
        if self._findings:  # keep the most recently used
            _prune(self.folder, self._findings_file("*").name, _MAX_FINDINGS)
        self._histories.clear()
        self._dirty.clear()
        self._dirty_singles.clear()
        self._findings.clear()

    def _write_shard(self, key: str) -> None:
        live = self._live
        self._scan_unscanned(self._shards[key])
        # Content holding a secret, as a scan of this run or an earlier one
        # found: only the scan's result, a fingerprint, is written for it,
        # never the text, so a secret removed from the file is gone from here too.
        secret = set().union(*({b for b, v in values.items() if v}
                               for kind, values in self._shards[key].items() if kind.startswith(SECRET_KINDS)))
        shard = {kind: {b: v for b, v in values.items()
                        if b in live and (b not in secret or kind.startswith(SECRET_KINDS))}
                 for kind, values in self._shards[key].items()
                 if not kind.startswith(LOCAL_KINDS) or kind == self._local_kind}
        _write(self.folder / f"blobs-{key}.pickle", shard)


    def _scan_unscanned(self, shard: dict[str, dict]) -> None:
        """Scan for secrets the parsed text of each blob no secret scan has
        looked at (a run without MEM601: ``--select``, ``health``), noting
        what it finds under SCANNED: a text with a secret is not written."""
        scanned = set().union(*(values for kind, values in shard.items() if kind.startswith(SECRET_KINDS)))
        texts = [(blob, outcome[3].text) for kind, values in shard.items() if kind.startswith("parse:")
                 for blob, outcome in values.items()
                 if blob in self._live and blob not in scanned and isinstance(outcome, tuple) and len(outcome) == 4
                 and outcome[3] is not None]
        if not texts:
            return
        from memlint.secrets import scan

        for blob, text in texts:
            found = next(iter(scan(text)), None) is not None
            shard.setdefault(SCANNED, {})[blob] = [found] if found else []


# --------------------------------------------------------------------------- whole findings


def findings_key(store, selection) -> str | None:
    """A digest of every input of ``lint_store(store, selection)``, or None when
    one cannot be pinned down (no git state; ``--since``, which names a revision)."""
    if store.cache is None or store.since is not None:
        return None
    if store.git_digest is None and not store.staged and ((store.repo_root / ".git").exists()
                                                          or os.environ.get("GIT_DIR")):
        # git did not answer (or was not asked: a bare "dotfiles" repository
        # named by GIT_DIR has no .git folder here): what the git rules saw may change
        return None
    import json

    h = hashlib.blake2b(digest_size=20)

    def add(*parts) -> None:
        for part in parts:
            h.update(json.dumps(part, sort_keys=True, default=repr).encode())
            h.update(b"\0")

    add(*_store_inputs(store), sorted(store.unlisted),  # (links into a folder not listed are not judged)
        sorted(selection.select), sorted(selection.ignore), sorted(selection.scopes),
        sorted(selection.only_paths) if selection.only_paths is not None else None)
    git = store.git_digest
    if git is None and store.staged:
        git = _staged_digest(store.repo_root, store.index_entries())
    # A merge stopped half way dates the files it brings by its branches' commits, staged run or not:
    # `git merge --quit` or `--abort` leaves HEAD and (--quit) the index as they were, and that dating gone.
    add(git, store.git_replaced, gitrun.merge_heads(store.repo_root) if git is not None else ())
    files = []
    for f in store._files:
        if f.blob is None and f.problem is None:
            return None  # a file whose content has no id (over the size cap): judge it again
        # realpath, not resolve(): a symlink loop must give a key, not an error
        files.append(f"{f.rel}\0{f.blob}\0{f.problem}\0{os.path.realpath(f.abspath) if f.link else ''}")
    h.update("\n".join(files).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _store_inputs(store, *, today: bool = True) -> tuple:
    """What every rule of ``store`` may read besides its files and git: the
    code, the folders, the configuration, the schema's bytes, the date
    (unless ``today`` is false)."""
    from memlint.rules.frontmatter_schema import schema_digest, schema_path

    schema = schema_path(store)
    digest = schema_digest(schema) if schema is not None else None
    return (code_version(), os.getcwd(), str(store.dir), str(store.repo_root), store.root_name, store.preset,
            store.settings, store.config.data, str(store.config.path), str(store.config.base_dir),
            store.today.isoformat() if today else None, store.staged, digest,
            store.git_dates.staged_day.isoformat() if store.staged else None)  # the day the commit being made carries


def local_kind(store) -> str:
    """The cache kind under which the findings of the ``LOCAL`` file rules
    are kept by blob id (``memlint.linter._local_outcomes``): it names the
    inputs they share, all but the file and its git dates; among those, the
    store's first commits (MEM401 excuses a ``created`` older than them).
    Not today's date, which none of them reads: the kind lasts from day to day."""
    import json

    h = hashlib.blake2b(digest_size=16)
    # (replace refs: a commit keeps its id and takes another's date, and a file's key is its commits' ids)
    for part in (*_store_inputs(store, today=False), sorted(store.git_dates.first_commits), store.git_replaced):
        h.update(json.dumps(part, sort_keys=True, default=repr).encode())
        h.update(b"\0")
    return LOCAL_KINDS + h.hexdigest()


def _staged_digest(repo_root: Path, entries: bytes | None = None) -> str | None:
    """HEAD, the whole index (``entries``, the store's ``index_entries``,
    when it read them), and the commits a merge being made merges, for a
    staged run (the index is the file set; a merge dates what it brings by
    its branches' commits)."""
    try:
        out = [gitrun.run(repo_root, ["rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD"])[1],
               entries if entries is not None else gitrun.run(repo_root, ["ls-files", "-s", "-z"])[1]]
        out.append(" ".join(gitrun.merge_heads(Path(repo_root))).encode())
    except OSError:
        return None
    return hashlib.blake2b(b"\0".join(out), digest_size=16).hexdigest()


def graph_probes(store) -> dict[str, tuple] | None:
    """What the link graph looked up on disk beyond the store's own files:
    {repo-relative path: (kind, link target)}. None: the graph was not built
    (nothing to check). Paths the file list covers (the store's files and the
    folders holding them) are left out."""
    graph = store.__dict__.get("graph")
    lifecycle = store.__dict__.get("lifecycle")
    looked = _unread_probes(store, lifecycle) if lifecycle is not None else {}
    looked.update(store.disk_probes)  # what a staged run's rules looked for on disk (Store.file_on_disk)
    if graph is None:
        return looked or None
    kinds = getattr(graph.files, "_kinds", None)
    if kinds is None:  # a staged run: the index is the file set, and it is in the key
        return looked
    covered = {doc.path for doc in store.docs.values()}
    for folder in {path.rpartition("/")[0] for path in covered}:  # a few folders hold many files
        parts = folder.split("/") if folder else []
        covered.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    probes = dict(looked)
    for rel, kind in kinds.items():
        if rel in covered and kind in ("file", "dir"):
            continue
        probes[rel] = (kind, _readlink(store.repo_root / rel) if kind == "link" else None)
    return probes


_UNREAD = "\0unread markdown"  # a probe key no path can be


def _unread_probes(store, lifecycle) -> dict[str, tuple]:
    """What the lifecycle looked up beyond the store's files, as probes:
    each path a reference was tried as (a file, or nothing), and when it
    listed every markdown file the store does not read, the folders it
    walked (a name added or removed in one changes its time)."""
    probes: dict[str, tuple] = {}
    for rel, was_file in lifecycle.probed.items():
        path = store._repo_path(store.dir / rel)
        probes[path] = ("file" if was_file else None, None)
        folder = path.rpartition("/")[0] if was_file else ""
        while folder and not folder.startswith("/"):  # found through folders, each still one (not a link out)
            probes.setdefault(folder, ("dir", None))
            folder = folder.rpartition("/")[0]
    if lifecycle.walked is not None:
        probes[_UNREAD] = ("folders", lifecycle.walked)
    return probes


def probes_hold(store, probes: dict[str, tuple] | None) -> bool:
    """Whether every path the graph looked up is still what it was."""
    for rel, (kind, target) in (probes or {}).items():
        if rel == _UNREAD:  # the folders walked for files the store does not read: each as it was
            from memlint.lifecycle import folders_unchanged

            if not folders_unchanged(target):
                return False
            continue
        if disk_probe(store.repo_root, rel) != (kind, target):
            return False
    return True


def disk_probe(repo_root: Path, rel: str) -> tuple[str | None, str | None]:
    """(what a repository path is on disk: "file", "dir", "link" or None,
    the link's target for a link): a probe of the findings' key."""
    import stat as stat_mod

    try:
        mode = os.lstat(repo_root / rel).st_mode if rel else None
    except (OSError, ValueError):
        return None, None
    if mode is not None and stat_mod.S_ISLNK(mode):
        return "link", _readlink(repo_root / rel)
    return ("dir" if mode is None or stat_mod.S_ISDIR(mode) else "file"), None


def _readlink(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None
