"""The characters of Chinese, Japanese and Korean, defined once for every
place that splits text into words: the session index and keywords (health,
triage), memlint eval, MEM302's shingles and MEM204's table keys. Each is
the inside of a regular expression's character class: ``f"[{UNSPACED}]"``.
"""

# Scripts written without spaces between words (Chinese, Japanese), where a
# word cannot be told by spaces: kana, half-width katakana and the CJK
# ideographs (extension A, the unified block, the compatibility block).
UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
# Hiragana: in a name of other characters, a particle (Redisを使う is a phrase).
HIRAGANA = "\u3040-\u309f"
# Katakana, full and half width: a run of it is one word (データベース, ｾｷｭﾘﾃｨ).
KATAKANA = "\u30a0-\u30ff\uff66-\uff9f"
# Korean syllables. Korean is written with spaces, its particles glued on
# (버전을): a word of it is told by spaces, as in English.
HANGUL_SYLLABLES = "\uac00-\ud7af"
# The syllables and the jamo they are typed from (a word being typed ends in one).
HANGUL = HANGUL_SYLLABLES + "\u1100-\u11ff\u3130-\u318f"
