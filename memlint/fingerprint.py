"""Exact and near-duplicate memory bodies, found without comparing all pairs.

``fingerprint(body)`` runs once per body. It depends only on the text, so it
can be cached by git blob id, and it holds only bytes and an int, so it
pickles small and fast (sets are unpacked only for the pairs compared). What
it gives:

* ``exact``: blake2b-128 of :func:`normalise` (lowercase, punctuation
  removed, whitespace collapsed), or ``b""`` for a blank body.
* ``shingles``: 30-bit hashes of word 3-shingles, built *per segment* (a line
  or a sentence), so a segment's shingles do not depend on its neighbours.
  Reordering lines or sentences leaves the set unchanged. Two files from one
  template share only the template's own segments ("why", "how to apply",
  stock lines), not their facts. A segment shorter than three words is one
  shingle. CJK ideographs and kana (half-width katakana too) are one token
  each, since those scripts do not separate words with spaces.
* ``simhash``: a 64-bit SimHash over the shingles (a consistent sample of
  about 64 of them), for callers that want a one-integer summary.
  Candidate generation does not use it.
* ``words``: the token count.
* ``bands``: the body's band keys for near_pairs at ``_STORED_ROWS`` rows
  (every threshold up to 0.5, the default included). Computing them is most
  of near_pairs's cost, so they are made once with the rest and a cache
  keeps them; they are plain integers, the same in every process and Python
  version.

``near_pairs`` builds candidates with MinHash-style banding over the
shingle hashes, then confirms each one with the exact Jaccard similarity of
the two sets. The hashes are already uniformly random, so sorting a set
orders it by a random permutation. A band key is ``rows`` consecutive
sorted hashes packed into one integer (a bottom-``rows`` sketch). Two sets share a key
when the sorted union has a run of ``rows`` hashes that are in both sets,
which happens with probability about ``J ** rows``. Each body gets about
_BANDS such keys ("looks"):

* more than _BANDS hashes: one window per non-empty bin of the hash space
  (_BANDS bins, by the top bits), starting at the bin's smallest hash;
* fewer: every window, plus the windows of extra orders
  (``x -> x * a mod 2**30``) when the set is small.

``rows`` comes from the threshold (:func:`_rows_for`), so a pair at the
threshold is missed about 0.1 % of the time or less. Pairs of unrelated
bodies become candidates at a rate of about ``J ** rows`` per look. A key
that more than _BUCKET_CAP bodies share is nearly always template
boilerplate; it is expanded only if sampled pairs from it really are
near-duplicates.

Each body costs one sort and C-level maps over its hashes. Bodies are
compared only if they share a band key.

``fingerprint`` itself works on the lowercased body's UTF-8 bytes
(bytes.translate, bytes.replace, bytes regexes), takes the 3-word windows of
all words in a row less those that cross a segment's end, and so has no
per-line Python loop. tests/test_fingerprint.py checks that it returns
exactly what the plain, per-segment str algorithm returns.
"""

from __future__ import annotations

import functools
import hashlib
import re
import string
import sys
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, filterfalse, islice, repeat
from operator import add, and_, gt, is_not, itemgetter, lshift, methodcaller, mul, or_, rshift, sub, truediv

__all__ = [
    "DEFAULT_THRESHOLD",
    "Fingerprint",
    "NearMemo",
    "exact_groups",
    "exact_key",
    "fingerprint",
    "jaccard",
    "near_pairs",
    "near_pairs_since",
    "normalise",
]

# DEFAULT_THRESHOLD, measured on the four stores in shared/corpora (Jaccard of
# the shingle sets, frontmatter stripped, daily logs skipped). At HEAD (398
# bodies) no pair reaches 0.3. So every non-daily *.md blob in their history
# was used (443 distinct bodies). "Read" means both files were opened and
# diffed by hand; "true" means the same memory filed twice, or one is a
# rewrite of the other.
#   threshold      0.3   0.4   0.5   0.6   0.7   0.8   0.9
#   pairs           67    57    49    41    35    31    22
#   read / true  25/25 20/20 16/16 13/13 12/12   9/9   4/4
# 66 of the 67 pairs are two versions of one file (21 files). The other is
# MEMORY.md against core.md, a condensed copy of it. For each file, the
# lowest-scoring pair (or one almost the same) was read, so the unread pairs,
# which score higher, count as true too. The false pairs all score lower:
# two templates derived from one another (0.27), entity TEMPLATE files
# (0.25), an overview and its sprint plan (0.19), and same-template notes
# (<= 0.19). Synthetic same-template files whose stock lines are a third to
# 40 % of the text score 0.20-0.23 (median) and 0.31-0.32 (max). At 0.3
# nothing false was found, but the margin is thin. 0.4 keeps a margin of
# 0.13 over the real false pairs and 0.08 over the synthetic ones. It drops
# 10 true pairs (0.30-0.40): files that grew 1.6-2.5x, and the condensed
# copy, where Jaccard is low by construction.
DEFAULT_THRESHOLD: float = 0.4

SHINGLE_K = 3            # words per shingle
MAX_SHINGLES = 4096      # bigger bodies keep their 4096 smallest hashes (a consistent sample)
_BANDS = 64              # band keys ("looks") per body; a power of two
_MAX_ROWS = 8            # hashes per band key, at most (chosen per threshold by _rows_for)
_BUCKET_CAP = 64         # bodies sharing one band key before the key is suspected boilerplate
_CLUSTER_SAMPLE = 8      # pairs tested to tell a real cluster from boilerplate

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_HASH_BITS = 30          # shingle hash width: CPython's fast single-digit ints
_HASH_MASK = (1 << _HASH_BITS) - 1
# Odd multipliers: x -> x * a mod 2**30 permutes the hashes into another order.
_ORDERS = (0x2545F491, 0x1B873593, 0x0CC9E2D5, 0x27D4EB2F, 0x165667B1, 0x3C6EF35F, 0x08EBCA6B)
_BIN_SHIFT = _HASH_BITS - (_BANDS.bit_length() - 1)  # top bits of a hash: its bin (_BANDS is a power of two)
_STORED_ROWS = 2         # rows of the band keys a Fingerprint carries: _rows_for(t) for every t <= 0.5

# --- normalisation ---------------------------------------------------------

# Both the exact key and the tokens are made from the lowercased body's UTF-8
# bytes (lone surrogates kept with "surrogatepass"): bytes.translate with a
# 256-byte table is many times faster than str.translate with a dict. ASCII
# bytes occur in UTF-8 only as themselves, and a multi-byte character's
# encoding only at a character boundary, so byte-level replacements act
# exactly as the character-level ones would.

# Markdown punctuation (headings, emphasis, code, quotes, link and image
# brackets, tables, strikethrough, list markers) and, with it, all other ASCII
# punctuation becomes a space. So "**x**" -> "x", "[text](target)" -> "text
# target", and "**staging**." equals "staging.". So does the typographic and
# CJK punctuation the tokens split on (curly quotes, dashes, ellipsis, bullets,
# 、。「」（）...): "Don’t — ever" re-typed as "Don't -- ever" is the same text.
_WIDE_PUNCTUATION = (
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00b7\u2022\u2192\u2190"
    "\u3001\u3002\u3008\u3009\u300a\u300b\u300c\u300d\u300e\u300f\u3010\u3011"
    "\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f"
)
_NORM_TABLE = str.maketrans({c: " " for c in string.punctuation + _WIDE_PUNCTUATION})

# The characters str.split() splits on: ASCII ones (\x1c-\x1f included) and,
# beyond ASCII, _UNICODE_SPACES (a test checks the list is complete).
_ASCII_SPACES = "".join(c for c in map(chr, range(128)) if c.isspace())
_UNICODE_SPACES = "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
# normalise() on bytes: punctuation and ASCII whitespace -> space, then runs of
# spaces collapsed, the ends stripped.
_NORM_BYTES = bytes.maketrans(
    (string.punctuation + _ASCII_SPACES).encode(), b" " * (len(string.punctuation) + len(_ASCII_SPACES))
)


def _alternation(chars: str) -> re.Pattern[bytes]:
    """A bytes pattern matching the UTF-8 encoding of any of ``chars``."""
    return re.compile(b"|".join(re.escape(c.encode()) for c in sorted(chars)))


_WIDE_NORM_RE = _alternation(_UNICODE_SPACES + _WIDE_PUNCTUATION)
_SPACE_RUN_RE = re.compile(b"  +")


def _normalise_bytes(lowered: bytes) -> bytes:
    """normalise(), on an already lowercased body's UTF-8 bytes."""
    text = lowered.translate(_NORM_BYTES)
    if not lowered.isascii():
        text = _WIDE_NORM_RE.sub(b" ", text)
    return _SPACE_RUN_RE.sub(b" ", text).strip(b" ")


def normalise(body: str) -> str:
    """Lowercase the body, turn punctuation (markdown included) into spaces and collapse whitespace to single spaces."""
    return " ".join(body.lower().translate(_NORM_TABLE).split())


def _digest(normalised: bytes) -> bytes:
    if not normalised:
        return b""
    return hashlib.blake2b(normalised, digest_size=16).digest()


def exact_key(body: str) -> bytes:
    """blake2b-128 of :func:`normalise` (as UTF-8); ``b""`` for a blank body, which is never a duplicate."""
    return _digest(_normalise_bytes(body.lower().encode("utf-8", "surrogatepass")))


# --- tokens and shingles ---------------------------------------------------

# Word separators: all ASCII punctuation except . ! ? (sentence ends, see
# _SENTENCE_ENDS), common typographic and CJK punctuation, and the Unicode spaces
# that bytes.split() would not split on.
_TOKEN_SEPARATORS = (
    "\"#$%&'()*+,-/:;<=>@[\\]^_`{|}~"
    "\u00a0\u2000\u2001\u2002\u2003\u2009\u200b\u3000"
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00b7\u2022\u2192\u2190"
    "\u3001\u3008\u3009\u300a\u300b\u300c\u300d\u300e\u300f\u3010\u3011"
    "\uff08\uff09\uff0c\uff1a\uff1b"
)
_LINE_BREAKS = "\u3002\uff01\uff1f\u2028\u2029\r"  # 。！？ and line separators end a segment too
_ASCII_SEPARATORS = "".join(c for c in _TOKEN_SEPARATORS if c.isascii())
_TOKEN_BYTES = bytes.maketrans(
    (_ASCII_SEPARATORS + "\r").encode(), b" " * len(_ASCII_SEPARATORS) + b"\n"
)
_WIDE_SEPARATORS_RE = _alternation("".join(c for c in _TOKEN_SEPARATORS if not c.isascii()))
_WIDE_BREAKS_RE = _alternation("".join(c for c in _LINE_BREAKS if not c.isascii()))
# A . ! or ? followed by whitespace ends a sentence. The replacements are made
# one after another, in this order (bytes.replace is 10x faster than a regex
# here), and only for the marks and whitespace the text holds.
_SENTENCE_ENDS = (
    (b".", (b". ", b".\n", b".\t")),
    (b"!", (b"! ", b"!\n")),
    (b"?", (b"? ", b"?\n")),
)
# Scripts written without spaces between words: one token per character.
# These are the UTF-8 encodings of memlint.cjk.UNSPACED (the text here is
# bytes): U+3040-U+30FF (kana), U+3400-U+4DBF, U+4E00-U+9FFF and
# U+F900-U+FAFF (ideographs) and U+FF66-U+FF9F (half-width katakana); a test
# checks every character against UNSPACED.
_CJK_RE = re.compile(
    b"(\xe3[\x81-\x83\x90-\xbf][\x80-\xbf]"
    b"|\xe4[\x80-\xb6\xb8-\xbf][\x80-\xbf]"
    b"|[\xe5-\xe9][\x80-\xbf][\x80-\xbf]"
    b"|\xef[\xa4-\xab][\x80-\xbf]"
    b"|\xef\xbd[\xa6-\xbf]|\xef\xbe[\x80-\x9f])"
)


def _segment_text(lowered: bytes) -> bytes:
    """A lowercased body's UTF-8 bytes with one line per segment (a line or a
    sentence) and separators turned into spaces."""
    text = lowered.translate(_TOKEN_BYTES) + b"\n"
    wide = not lowered.isascii()
    if wide:
        text = _WIDE_BREAKS_RE.sub(b"\n", _WIDE_SEPARATORS_RE.sub(b" ", text))
    for mark, ends in _SENTENCE_ENDS:
        if mark in text:
            for end in ends:
                if end[1:] in text:  # one-byte searches (memchr) are cheap; a replace's scan is not
                    text = text.replace(end, b"\n")
    if wide:
        text = _CJK_RE.sub(rb" \1 ", text)
    return text


def _segments(lowered: bytes) -> list[list[bytes]]:
    """Token lists of a lowercased body's UTF-8 bytes, one list per non-empty
    line or sentence (number-only segments included: see _shingle_crcs)."""
    return list(filter(None, map(bytes.split, _segment_text(lowered).split(b"\n"))))


_JOIN = b" ".join
_IS_SHORT = SHINGLE_K.__gt__
# _WINDOW_STARTS[m]: for each word of an m-word segment, whether a 3-word
# window starting there stays inside the segment (1) or not (0).
_WINDOW_STARTS = [b"\x01" * (m - 2) + b"\x00" * min(m, 2) for m in range(256)]


def _window_starts(m: int) -> bytes:
    return b"\x01" * (m - 2) + b"\x00" * min(m, 2)


def _shingle_crcs(segments: list[list[bytes]]) -> tuple[list[int], int]:
    """(crc32 of each shingle string, word count) of the segments.

    A segment's shingles are its word 3-grams, joined by spaces; a segment
    shorter than three words ("why", "how to apply") is one shingle. A
    segment that is only a number (an ordered-list marker such as "1." on its
    own) is dropped, so renumbering a list changes nothing. Duplicates are
    left in (the caller makes a set of the hashes).

    The 3-grams are the windows of all the words in a row, less those that
    cross a segment's end, so there is no per-segment Python work.
    """
    lengths = list(map(len, segments))
    words = list(chain.from_iterable(segments))
    inside = b"".join(map(_WINDOW_STARTS.__getitem__ if max(lengths, default=0) < len(_WINDOW_STARTS) else _window_starts, lengths))
    windows = compress(zip(words, islice(words, 1, None), islice(words, 2, None)), inside)  # SHINGLE_K == 3
    crcs = list(map(zlib.crc32, map(_JOIN, windows)))
    count = len(words)
    if min(lengths, default=SHINGLE_K) < SHINGLE_K:
        short = list(map(_JOIN, compress(segments, map(_IS_SHORT, lengths))))
        numbers = sum(map(bytes.isdigit, short))  # a joined pair holds a space, never a digit-only string
        if numbers:
            count -= numbers
            short = filterfalse(bytes.isdigit, short)
        crcs += map(zlib.crc32, short)
    return crcs, count


_TO_BYTES = methodcaller("to_bytes", 8, "big")
_BIT_TABLES = tuple(bytes((b >> k) & 1 for b in range(256)) for k in (7, 6, 5, 4, 3, 2, 1, 0))
_SIMHASH_FEATURES = 64   # a bigger set builds its SimHash from a consistent sample of about this many shingles


def _simhash(shingles: frozenset[int]) -> int:
    """64-bit SimHash: bit i is set when more than half of the features have it set.

    The features are the shingles, each spread to 64 bits by a multiplicative
    hash. A big set uses only its shingles below a cut (about
    _SIMHASH_FEATURES of them). That is a consistent sample, so near-duplicates
    keep sampling mostly the same shingles. The cost is 64 C-level passes over
    about _SIMHASH_FEATURES bytes each.
    """
    n = len(shingles)
    if not n:
        return 0
    if n > _SIMHASH_FEATURES:
        cut = (_SIMHASH_FEATURES << _HASH_BITS) // n
        features = [(x * _GOLDEN) & _MASK64 for x in shingles if x < cut]
    else:
        features = [(x * _GOLDEN) & _MASK64 for x in shingles]
    if not features:
        return 0
    data = b"".join(map(_TO_BYTES, features))
    half = len(features) / 2
    out = 0
    for j in range(8):  # byte column j of the features' n x 8 byte matrix, then each of its bits
        column = data[j::8]
        for table in _BIT_TABLES:
            out = (out << 1) | (column.translate(table).count(1) > half)
    return out


@dataclass(frozen=True)
class Fingerprint:
    """Kept packed: a store holds one per memory, and a set of ~200 ints
    costs ~13 KB where its sorted 4-byte array costs 0.8 KB (on 10,000
    files, 130 MB of peak memory, and most of the cache's load time)."""

    exact: bytes               # blake2b-128 of normalise(body); b"" when blank
    packed: bytes              # the shingle hashes, sorted, as array("I") bytes
    words: int                 # tokens in the body
    packed_bands: bytes = b""  # band keys at _STORED_ROWS rows as array("Q") bytes; b"" when not computed

    @property
    def shingles(self) -> frozenset[int]:
        """30-bit hashes of per-line/sentence word 3-shingles (<= MAX_SHINGLES)."""
        return frozenset(array("I", self.packed)) if self.packed else _EMPTY

    @property
    def bands(self) -> list[int]:
        """Band keys at _STORED_ROWS rows; [] when not computed (near_pairs makes them)."""
        return array("Q", self.packed_bands).tolist() if self.packed_bands else []

    @property
    def simhash(self) -> int:
        """64-bit SimHash of (a consistent sample of) the shingles. No rule
        reads it, so it is computed on demand, not for every body."""
        return _simhash(self.shingles) if self.packed else 0


_EMPTY = frozenset()
assert array("I").itemsize == 4 and array("Q").itemsize == 8  # hashes are 30 bits, band keys 60


def fingerprint(body: str) -> Fingerprint:
    """Fingerprint one memory body (frontmatter already removed). Pure and picklable."""
    lowered = body.lower().encode("utf-8", "surrogatepass")
    key = _digest(_normalise_bytes(lowered))
    if not key:
        return Fingerprint(b"", b"", 0)
    crcs, words = _shingle_crcs(_segments(lowered))
    # A shingle's hash is the top 30 bits of its crc32: uniform, stable across
    # processes, computed in C, and a CPython single-digit int (fast to sort
    # and hash). Raw crc32 found near-threshold pairs as often as a mixed
    # 64-bit hash did (tried on 1,500 generated pairs at each of five sizes).
    ordered = sorted(frozenset(map(rshift, crcs, repeat(32 - _HASH_BITS, len(crcs)))))
    if len(ordered) > MAX_SHINGLES:  # keep a consistent sample: the smallest hashes
        del ordered[MAX_SHINGLES:]
    bands = _sorted_band_keys(ordered, _STORED_ROWS)
    return Fingerprint(key, array("I", ordered).tobytes(), words, array("Q", bands).tobytes())


# --- exact duplicates ------------------------------------------------------


def exact_groups(items: Iterable[tuple[str, Fingerprint]]) -> list[list[str]]:
    """Groups (sorted, two or more ids) of bodies whose non-empty exact keys are equal."""
    by_key: dict[bytes, list[str]] = {}
    for ident, fp in items:
        if fp.exact:
            group = by_key.get(fp.exact)
            if group is None:
                by_key[fp.exact] = [ident]
            else:
                group.append(ident)
    return sorted(sorted(g) for g in by_key.values() if len(g) > 1)


# --- near duplicates -------------------------------------------------------


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """Jaccard similarity of two shingle sets.

    If either set was cut to MAX_SHINGLES (a bottom-k sample), both are first
    restricted to the hash range that both samples cover, so the estimate
    stays unbiased.
    """
    if len(a) >= MAX_SHINGLES or len(b) >= MAX_SHINGLES:
        cut = min(max(a), max(b))
        a = frozenset(x for x in a if x <= cut)
        b = frozenset(x for x in b if x <= cut)
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def _rows_for(threshold: float) -> int:
    """Hashes per band key for a threshold.

    A pair with Jaccard J shares a key when the sorted union, where we look,
    has a run of ``rows`` hashes that both sets hold. Over the ~_BANDS looks
    a body gets, the expected number of such runs is about
    ``2 * _BANDS * (1 - J) * J**rows / (1 + J)``. Take the most rows for which
    that is still >= 6.9 at J = threshold (a miss rate of about e**-6.9, or
    0.1 %). Each extra row cuts the chance candidates among unrelated bodies
    by a factor of J.
    """
    t = min(max(threshold, 0.05), 0.8)  # above 0.8 runs are long and the estimate too pessimistic
    looks = 2 * _BANDS * (1 - t) / (1 + t)
    rows = 2
    while rows < _MAX_ROWS and looks * t ** (rows + 1) >= 6.9:
        rows += 1
    return rows


def _windows(s: list[int], rows: int, starts: Iterable[int] | None = None) -> list[int]:
    """A key for the ``rows`` consecutive values of sorted ``s`` (circularly)
    at each start index (default: every index).

    The key packs the values into one integer, ``_HASH_BITS`` bits each: as
    cheap as hashing a tuple, free of collisions, and the same in every
    process and Python version, so stored keys (Fingerprint.bands) and fresh
    ones always agree. (XOR would be cheaper, but neighbours in sorted order
    share their high bits, and an even number of them cancel those bits out.)
    """
    ring = s + s[: rows - 1]
    if starts is None:
        columns = [ring[r:] for r in range(rows)]
    elif rows == 2:  # the stored keys: one comprehension beats four maps over the starts
        return [ring[i] | ring[i + 1] << _HASH_BITS for i in starts]
    else:
        get = ring.__getitem__
        starts = list(starts)
        columns = [list(map(get, starts))]
        columns += [list(map(get, map(add, starts, repeat(r, len(starts))))) for r in range(1, rows)]
    keys = columns[0]
    for r in range(1, rows):  # map() stops at the shortest column: one key per window
        keys = map(or_, keys, map(lshift, columns[r], repeat(_HASH_BITS * r)))
    return list(keys)


def _pack(values: Sequence[int]) -> int:
    """The key of a set of ``rows`` or fewer hashes: all of them, packed."""
    key = 0
    for r, value in enumerate(values):
        key |= value << (_HASH_BITS * r)
    return key


def _band_keys(shingles: frozenset[int], rows: int) -> list[int]:
    """About _BANDS band keys for one shingle set (see the module docstring)."""
    return _sorted_band_keys(sorted(shingles), rows)


# A hash's bin is its top byte as a 32-bit number (hashes are below 2**30, and
# _BIN_SHIFT is 24), so array("I") of the sorted hashes, sliced, lists the bins.
_TOP_BYTE = slice(3 if sys.byteorder == "little" else 0, None, 4)


def _bin_starts(s: list[int]) -> Iterable[int]:
    """The index of each non-empty bin's smallest hash in sorted ``s``: where
    the bin differs from the previous hash's."""
    n = len(s)
    bins = int.from_bytes(array("I", s).tobytes()[_TOP_BYTE], "little")
    changed = (bins ^ (bins << 8 | 0xFF)) & ((1 << 8 * n) - 1)  # byte i: bin i xor bin i - 1 (bin -1 is 0xff)
    return compress(range(n), changed.to_bytes(n, "little"))


def _sorted_band_keys(s: list[int], rows: int) -> list[int]:
    """_band_keys of a set given as its sorted list.

    The number of extra orders only falls as a set grows, so any two bodies
    share all the orders of the larger one.
    """
    n = len(s)
    if n <= rows:
        return [_pack(s)]
    if n > _BANDS:
        # One window per non-empty bin (the top bits of a hash), starting at
        # the bin's smallest hash.
        return _windows(s, rows, _bin_starts(s))
    keys = _windows(s, rows)
    for a in _ORDERS[: round(_BANDS / n) - 1]:
        keys += _windows(sorted(map(and_, map(mul, s, repeat(a, n)), repeat(_HASH_MASK, n))), rows)
    return keys


def _is_cluster(bucket: list[int], sets, threshold: float) -> bool:
    """Whether at least half of a spread sample of neighbouring pairs in a big bucket pass the threshold."""
    last = len(bucket) - 1
    hits = 0
    for k in range(_CLUSTER_SAMPLE):
        x = k * last // _CLUSTER_SAMPLE
        if jaccard(sets(bucket[x]), sets(bucket[x + 1])) >= threshold:
            hits += 1
    return 2 * hits >= _CLUSTER_SAMPLE


@dataclass(frozen=True)
class NearMemo:
    """What one ``near_pairs_since`` call found, for the next call to start from.

    Bodies are named by content (``_identity``), never by path: ``names``,
    in the order of the call. ``pairs`` holds every pair of them that was a
    candidate and reached the threshold, with its similarity, kept packed
    (``codes``: ``i * len(names) + j`` for the names' places, i < j, and
    ``similarities``, as arrays): a cluster of near-copies has n²/2 pairs,
    which as tuples took longer to pickle and load than to find.
    ``verdicts`` says, for each band key more than _BUCKET_CAP bodies
    shared, whether its bucket was expanded (a cluster) or skipped
    (boilerplate)."""

    threshold: float
    min_words: int
    names: tuple[bytes, ...]
    codes: bytes  # array("Q")
    similarities: bytes  # array("d")
    verdicts: dict[int, bool]

    @functools.cached_property
    def bodies(self) -> frozenset[bytes]:
        return frozenset(self.names)

    @property
    def pairs(self) -> list[tuple[bytes, bytes, float]]:
        n, names = len(self.names), self.names
        return [(names[code // n], names[code % n], sim)
                for code, sim in zip(array("Q", self.codes), array("d", self.similarities))]


def _identity(fp: Fingerprint) -> bytes:
    """A body's name in a NearMemo: its exact key and shingles, digested."""
    return hashlib.blake2b(fp.exact + fp.packed, digest_size=16).digest()


def near_pairs(
    items: Sequence[tuple[str, Fingerprint]],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    min_words: int = 20,
    stats: dict | None = None,
) -> list[tuple[str, str, float]]:
    """Pairs of bodies whose shingle Jaccard similarity is >= threshold, exact duplicates excluded.

    Returns ``(id_a, id_b, similarity)`` with ``id_a < id_b``, sorted. Bodies
    with fewer than ``min_words`` words are skipped (too short to judge).
    Exact duplicates are indexed once, and a near pair found for one is
    reported for every member of its group.

    If ``stats`` is a dict, it receives these counters:

    * ``eligible``: bodies with enough words;
    * ``indexed``: distinct exact keys among them;
    * ``rows``: hashes per band key;
    * ``keys``: band keys indexed;
    * ``max_bucket``: the most bodies that share one key;
    * ``skipped_buckets``: oversized buckets judged boilerplate and not expanded;
    * ``candidates``: distinct pairs that share a key, i.e. the Jaccard
      computations done;
    * ``pairs``: pairs returned.
    """
    return near_pairs_since(items, None, threshold, min_words=min_words, stats=stats)[0]


def near_pairs_since(
    items: Sequence[tuple[str, Fingerprint]],
    earlier: NearMemo | None,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    min_words: int = 20,
    stats: dict | None = None,
) -> tuple[list[tuple[str, str, float]], NearMemo]:
    """``near_pairs``, and the memo for the next call; given ``earlier``, the
    memo of a call on an earlier state of the same store, only the pairs
    that involve a body it did not have are judged.

    That gives exactly what the full run gives when every crowded bucket
    (more than _BUCKET_CAP bodies, judged by a sample of its pairs) gets the
    verdict it got then: two unchanged bodies share the same band keys as
    before, so they are a candidate now exactly when they were, and their
    similarity is the same. Otherwise (and with a different threshold, or
    most bodies new) every candidate is judged again.
    (``stats["candidates"]`` counts the pairs judged; built on ``earlier``,
    ``keys`` and ``max_bucket`` count only the keys looked up.)"""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    threshold = float(threshold)  # (a config's `threshold: 1` is an int, whose __le__ cannot take a float)
    groups: dict[bytes, list[str]] = {}
    fps: list[Fingerprint] = []
    for ident, fp in items:
        if fp.words >= min_words and fp.packed:
            members = groups.get(fp.exact)
            if members is None:
                groups[fp.exact] = [ident]
                fps.append(fp)
            else:
                members.append(ident)
    n = len(fps)
    rows = _rows_for(threshold)
    decoded: dict[int, frozenset[int]] = {}

    def sets(idx: int) -> frozenset[int]:
        """Body ``idx``'s shingle set, unpacked once (only candidates need one)."""
        found = decoded.get(idx)
        if found is None:
            found = decoded[idx] = fps[idx].shingles
        return found

    names = [_identity(fp) for fp in fps]
    confirmed: dict[int, float] = {}  # i * n + j (i < j) -> similarity, pairs known to pass
    since = _scan_since(earlier, threshold, min_words, rows, fps, names, sets, confirmed)
    if since is not None:
        candidates, verdicts, n_keys, max_bucket = since
    else:
        candidates, verdicts, n_keys, max_bucket = _bucket_all(earlier, threshold, min_words, rows, fps, names, sets,
                                                               confirmed)
    skipped = sum(1 for expanded in verdicts.values() if not expanded)
    if len(candidates) >= _BITS_FROM:
        _judge_as_bits(candidates, n, sets, threshold, confirmed)
    else:
        _judge_on_sets(candidates, n, sets, threshold, confirmed)

    ids = [groups[fp.exact] for fp in fps]
    out: list[tuple[str, str, float]] = []
    # In the order of the bodies' places (ints sort fast): bodies given in
    # path order, as the rules give them, come out sorted already, and the
    # sort only checks it (sorting a cluster's n²/2 pairs by their paths
    # took longer than finding them).
    codes = sorted(confirmed)
    similarities = list(map(confirmed.__getitem__, codes))
    if sum(map(len, ids)) == n:  # no two bodies alike (the usual case): a pass of C-level calls per step
        single = [members[0] for members in ids]
        out = list(zip(map(single.__getitem__, map(n.__rfloordiv__, codes)),
                       map(single.__getitem__, map(n.__rmod__, codes)), similarities))
        if any(map(gt, map(itemgetter(0), out), map(itemgetter(1), out))):  # (ids not given in order)
            out = [pair if pair[0] < pair[1] else (pair[1], pair[0], pair[2]) for pair in out]
    else:
        for code, sim in zip(codes, similarities):
            i, j = divmod(code, n)
            for a in ids[i]:
                for b in ids[j]:
                    out.append((a, b, sim) if a < b else (b, a, sim))
    out.sort()
    memo = NearMemo(threshold, min_words, tuple(names), array("Q", codes).tobytes(),
                    array("d", similarities).tobytes(), verdicts)

    if stats is not None:
        stats.update(
            eligible=sum(map(len, groups.values())),
            indexed=n,
            rows=rows,
            keys=n_keys,
            max_bucket=max_bucket,
            skipped_buckets=skipped,
            candidates=len(candidates),
            pairs=len(out),
        )
    return out, memo


# Candidate pairs from which their similarities are counted on bits
# (``_judge_as_bits``): a cluster of n near-copies has n²/2 of them.
_BITS_FROM = 20_000
# The most shingles shared by two or more of the bodies judged for which
# they are: a cluster of near-copies shares a few hundred (2,000 copies of
# one template: 180 to 750); candidates spread over thousands of unrelated
# bodies share far more, and ints that wide cost more than the sets.
_BITS_WIDEST = MAX_SHINGLES


def _judge_on_sets(candidates, n: int, sets, threshold: float, confirmed: dict[int, float]) -> None:
    """``_judge_as_bits``'s answer, by intersecting the shingle sets."""
    for code in candidates:  # (``jaccard``'s common case inline)
        i, j = divmod(code, n)
        a = sets(i)
        b = sets(j)
        if 0 < len(a) < MAX_SHINGLES and 0 < len(b) < MAX_SHINGLES:
            inter = len(a & b)
            sim = inter / (len(a) + len(b) - inter)
        else:
            sim = jaccard(a, b)
        if sim >= threshold:
            confirmed[code] = sim


def _judge_as_bits(candidates, n: int, sets, threshold: float, confirmed: dict[int, float]) -> None:
    """Put each candidate pair (``i * n + j``) that reaches ``threshold``
    into ``confirmed``, with its similarity: exactly what intersecting the
    two shingle sets gives, 10 to 20 times faster on many pairs.

    A shingle only one of the bodies involved has is in no pair's
    intersection: each body becomes an int with one bit per shingle that
    two or more of them share (the most shared the lowest bits), and a
    pair's intersection is the count of the bits of the two ints' AND."""
    involved = set(map(n.__rfloordiv__, candidates))
    involved.update(map(n.__rmod__, candidates))
    if sum(map(len, map(sets, involved))) > 250 * _BITS_WIDEST:  # (candidates spread over many unrelated bodies)
        _judge_on_sets(candidates, n, sets, threshold, confirmed)
        return
    counts = Counter(chain.from_iterable(map(sets, involved)))
    shared = [shingle for shingle, count in counts.items() if count > 1]
    if len(shared) > _BITS_WIDEST:  # (each AND would cost more than it saves)
        _judge_on_sets(candidates, n, sets, threshold, confirmed)
        return
    if not all(0 < len(sets(idx)) < MAX_SHINGLES for idx in involved):  # (a body cut to a sample: ``jaccard``'s)
        _judge_on_sets(candidates, n, sets, threshold, confirmed)
        return
    shared.sort(key=counts.__getitem__, reverse=True)
    place = {shingle: k for k, shingle in enumerate(shared)}
    width = (len(shared) + 7) // 8
    bits = [0] * n
    sizes = [0] * n
    for idx in involved:
        found = sets(idx)
        bits[idx] = _bit_set(filter(functools.partial(is_not, None), map(place.get, found)), width)
        sizes[idx] = len(found)
    # a pass of C-level calls per step
    codes = list(candidates)
    firsts, seconds = list(map(n.__rfloordiv__, codes)), list(map(n.__rmod__, codes))
    common = list(map(int.bit_count, map(and_, map(bits.__getitem__, firsts), map(bits.__getitem__, seconds))))
    unions = map(sub, map(add, map(sizes.__getitem__, firsts), map(sizes.__getitem__, seconds)), common)
    similarities = list(map(truediv, common, unions))
    confirmed.update(compress(zip(codes, similarities), map(threshold.__le__, similarities)))


def _scan_since(earlier, threshold, min_words, rows, fps, names, sets, confirmed):
    """For ``near_pairs_since``: (candidates, verdicts of the crowded buckets,
    keys looked up, biggest bucket among them), built on ``earlier`` without
    bucketing every body; None where it cannot be built on this way.

    Only the buckets of the new bodies' keys and of the keys crowded then
    are made, in one pass over every body's stored band keys. A bucket
    crowded now holds a new body or was crowded then (unchanged bodies have
    the keys they had, and a bucket of them only lost members since), so
    those are all the verdicts a full run makes."""
    if (not isinstance(earlier, NearMemo) or (earlier.threshold, earlier.min_words) != (threshold, min_words)
            or rows != _STORED_ROWS):
        return None
    n = len(fps)
    new = [idx for idx, name in enumerate(names) if name not in earlier.bodies]
    if 2 * len(new) > n:
        return None  # most bodies are new: nothing to save

    def keys_of(fp: Fingerprint):
        return array("Q", fp.packed_bands) if fp.packed_bands else _sorted_band_keys(array("I", fp.packed).tolist(), rows)

    new_keys = {idx: set(keys_of(fps[idx])) for idx in new}
    wanted = set(earlier.verdicts).union(*new_keys.values())
    buckets: dict[int, list[int]] = {}
    for idx, fp in enumerate(fps):
        keys = keys_of(fp)
        if not wanted.isdisjoint(keys):
            for key in wanted.intersection(keys):
                bucket = buckets.get(key)
                if bucket is None:
                    buckets[key] = [idx]
                else:
                    bucket.append(idx)
    verdicts = {key: _is_cluster(bucket, sets, threshold) for key, bucket in buckets.items() if len(bucket) > _BUCKET_CAP}
    if any(verdicts.get(key, True) != earlier.verdicts.get(key, True) for key in verdicts.keys() | earlier.verdicts.keys()):
        return None
    _confirmed_since(earlier, names, confirmed)
    candidates: set[int] = set()
    for idx, keys in new_keys.items():
        for key in keys:
            bucket = buckets[key]
            if len(bucket) > 1 and verdicts.get(key, True):
                candidates.update([other * n + idx if other < idx else idx * n + other for other in bucket if other != idx])
    return candidates, verdicts, len(wanted), max(map(len, buckets.values()), default=0)


def _confirmed_since(earlier: NearMemo, names: list[bytes], confirmed: dict[int, float]) -> None:
    """Put the pairs ``earlier`` confirmed whose bodies are both still here into ``confirmed``."""
    n = len(names)
    where = {name: idx for idx, name in enumerate(names)}
    now = [where.get(name) for name in earlier.names]  # a body's place then -> its place now, or None
    then = len(earlier.names)
    codes, similarities = array("Q", earlier.codes), array("d", earlier.similarities)
    # (a cluster of near-copies has n²/2 pairs: a pass of C-level calls per step)
    firsts = list(map(now.__getitem__, map(then.__rfloordiv__, codes)))
    seconds = list(map(now.__getitem__, map(then.__rmod__, codes)))
    kept = list(map(and_, map(is_not, firsts, repeat(None)), map(is_not, seconds, repeat(None))))
    firsts, seconds = list(compress(firsts, kept)), list(compress(seconds, kept))
    similarities = compress(similarities, kept)
    if any(map(gt, firsts, seconds)):  # (a renamed body may now come before its partner)
        firsts, seconds = list(map(min, firsts, seconds)), list(map(max, firsts, seconds))
    confirmed.update(zip(map(add, map(n.__mul__, firsts), seconds), similarities))


def _bucket_all(earlier, threshold, min_words, rows, fps, names, sets, confirmed):
    """For ``near_pairs_since``: (candidates, verdicts of the crowded buckets,
    keys indexed, biggest bucket), every body bucketed by band key."""
    n = len(fps)
    # Bucket the bodies by band key. ``first`` maps each key to the first body
    # that had it (filled by C-level setdefault calls); only keys seen in two
    # or more bodies get a list in ``shared``.
    first: dict[int, int] = {}
    shared: dict[int, list[int]] = {}
    setdefault = first.setdefault
    n_keys = 0
    keys_of: list[list[int]] = []
    for idx, fp in enumerate(fps):
        keys = fp.bands if rows == _STORED_ROWS and fp.packed_bands else _sorted_band_keys(array("I", fp.packed).tolist(), rows)
        keys_of.append(keys)
        n_keys += len(keys)
        owners = list(map(setdefault, keys, repeat(idx, len(keys))))
        if owners.count(idx) == len(owners):
            continue
        for key, owner in zip(keys, owners):
            if owner != idx:
                bucket = shared.get(key)
                if bucket is None:
                    shared[key] = [owner, idx]
                elif bucket[-1] != idx:
                    bucket.append(idx)

    # A bucket of more than _BUCKET_CAP bodies is expanded only if a sample
    # of its pairs says it is a real cluster, not shared boilerplate.
    verdicts = {key: _is_cluster(bucket, sets, threshold) for key, bucket in shared.items() if len(bucket) > _BUCKET_CAP}
    candidates = _new_candidates(earlier, threshold, min_words, names, keys_of, shared, verdicts, confirmed)
    max_bucket = max(map(len, shared.values()), default=0)
    if candidates is None:  # judge every pair again
        candidates = set()
        for bucket in shared.values():
            size = len(bucket)
            if size == 2:
                candidates.add(bucket[0] * n + bucket[1])
            elif size <= _BUCKET_CAP:
                _add_bucket_pairs(bucket, n, candidates)
        _add_pairs_sharing([shared[key] for key, cluster in verdicts.items() if cluster], n, candidates)
    return candidates, verdicts, n_keys, max_bucket


_ONE_BITS = bytes.maketrans(b"01", b"\0\1")


def _add_bucket_pairs(bucket: list[int], n: int, candidates: set[int]) -> None:
    """Add each pair of a bucket's bodies (``i * n + j``; the bucket is in ascending order, so i < j)."""
    for x in range(len(bucket) - 1):
        candidates.update(map((bucket[x] * n).__add__, islice(bucket, x + 1, None)))


def _bit_set(places, width: int) -> int:
    """An int with the bits at ``places`` set (``width`` bytes wide, at least)."""
    packed = bytearray(width)
    for k in places:
        packed[k >> 3] |= 1 << (k & 7)
    return int.from_bytes(packed, "little")


def _add_pairs_sharing(buckets: list[list[int]], n: int, candidates: set[int]) -> None:
    """Add to ``candidates`` each pair of bodies (``i * n + j``, i < j) that
    share one of ``buckets`` (the crowded ones judged a cluster, in
    ascending order), each once.

    A cluster of near-copies shares dozens of band keys, most of them with
    the same bodies: listing each bucket's pairs would cost a cluster of m
    bodies dozens of times its m²/2 pairs. Each body's partners are instead
    the OR of its buckets, as ints with one bit per body."""
    # Clusters of different bodies (daily notes of several templates, their
    # members interleaved in path order) each get ints as wide as themselves.
    buckets = list({tuple(bucket): bucket for bucket in buckets}.values())  # (a cluster's keys share most buckets whole)
    owner: dict[int, int] = {}  # body -> the first bucket it was in, merged through its other buckets
    parent = list(range(len(buckets)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for k, bucket in enumerate(buckets):
        for first in set(map(owner.setdefault, bucket, repeat(k))):
            if first != k:
                parent[root(first)] = root(k)
    groups: dict[int, list[list[int]]] = {}
    for k, bucket in enumerate(buckets):
        groups.setdefault(root(k), []).append(bucket)
    for group in groups.values():
        _add_pairs_of_group(group, n, candidates)


def _add_pairs_of_group(buckets: list[list[int]], n: int, candidates: set[int]) -> None:
    """``_add_pairs_sharing`` for buckets that share bodies, one way or another."""
    buckets = sorted(buckets, key=len, reverse=True)
    whole = frozenset(buckets[0])
    if all(whole.issuperset(bucket) for bucket in buckets):  # (one holds the rest: its pairs are all)
        _add_bucket_pairs(buckets[0], n, candidates)
        return
    members = sorted(set().union(*buckets))
    place = {idx: k for k, idx in enumerate(members)}
    width = (len(members) + 7) // 8
    partners = [0] * len(members)  # a member's place -> its partners, a bit each
    for bucket in buckets:
        places = list(map(place.__getitem__, bucket))
        mask = _bit_set(places, width)
        for k in places:
            partners[k] |= mask
    for k, idx in enumerate(members):
        later = partners[k] >> (k + 1)  # (k's own bit, and the partners before it, whose pairs have k)
        if later:
            # the places of the set bits, lowest first: one byte of 0 or 1 each
            flags = format(later, "b")[::-1].encode("ascii").translate(_ONE_BITS)
            candidates.update(map((idx * n).__add__, map(members.__getitem__,
                                                         map((k + 1).__add__, compress(range(len(flags)), flags)))))


def _new_candidates(earlier, threshold, min_words, names, keys_of, shared, verdicts, confirmed) -> set[int] | None:
    """For ``near_pairs_since``: the candidate pairs that involve a body
    ``earlier`` did not have, after putting the pairs of unchanged bodies
    ``earlier`` confirmed into ``confirmed``; None when ``earlier`` cannot
    be built on (then every pair is judged)."""
    if not isinstance(earlier, NearMemo) or (earlier.threshold, earlier.min_words) != (threshold, min_words):
        return None
    n = len(names)
    new = [idx for idx, name in enumerate(names) if name not in earlier.bodies]
    if 2 * len(new) > n:
        return None  # most bodies are new: nothing to save
    # A bucket is expanded (all its pairs candidates) unless crowded and
    # judged boilerplate. Where every bucket is expanded or skipped as it
    # was, two unchanged bodies are a candidate now exactly when they were.
    if any(verdicts.get(key, True) != earlier.verdicts.get(key, True) for key in verdicts.keys() | earlier.verdicts.keys()):
        return None
    _confirmed_since(earlier, names, confirmed)
    candidates: set[int] = set()
    for idx in new:
        for key in keys_of[idx]:
            bucket = shared.get(key)
            if bucket is not None and verdicts.get(key, True):
                candidates.update([other * n + idx if other < idx else idx * n + other for other in bucket if other != idx])
    return candidates
