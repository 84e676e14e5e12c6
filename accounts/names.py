"""Names people see: stripped of invisible and text-direction characters; usernames that can't be mistaken.

``clean_name`` is pure and shared by every write path of a displayed name (characters, campaigns,
hirelings, items). The username checks use confusable-homoglyphs for the Unicode script and confusable
data the standard library lacks (issue 9, finding 12).
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import categories, confusables

# Control (Cc), format (Cf: zero-width, bidi overrides and isolates, BOM), lone surrogates (Cs) and
# line/paragraph separators: none belongs in a name, and Cf ones can reorder the text around them.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Confusables within ASCII that the homoglyph data (which maps other scripts onto Latin) leaves alone.
ASCII_LOOKALIKES = {"0": "o", "1": "l", "|": "l"}  # applied after casefold, so "I" is "i"


def _invisible(char: str) -> bool:
    return unicodedata.category(char) in INVISIBLE_CATEGORIES


def clean_name(value: str) -> str:
    """``value`` without control, zero-width and bidi characters, with runs of spaces made one space."""
    visible = "".join(" " if char.isspace() else char for char in str(value) if not _invisible(char))
    return " ".join(visible.split())


@cache
def _latin_lookalike(char: str) -> str:
    for glyph in confusables.confusables_data.get(char, ()):
        candidate = glyph["c"].strip("\u200e\u200f")
        if candidate.isascii() and candidate.isalnum():
            return candidate
    return char


def skeleton(username: str) -> str:
    """What a name looks like: two names with the same skeleton can be mistaken for each other."""
    text = unicodedata.normalize("NFKC", username).casefold()
    text = "".join(char if char.isascii() else _latin_lookalike(char) for char in text).casefold()
    text = "".join(ASCII_LOOKALIKES.get(char, char) for char in text)
    return text.replace("rn", "m").replace("vv", "w")


def username_problem(username: str, existing: list[str] | None = None) -> str | None:
    """Why ``username`` (already NFKC-normalised) can't be used, in words, or None if it can."""
    if any(_invisible(char) for char in username):
        if not clean_name(username):
            return "A username needs visible letters or digits, not only invisible characters."
        return "Usernames can't contain invisible or text-direction characters; type it with visible ones only."
    if confusables.is_mixed_script(username):
        scripts = sorted(categories.unique_aliases(username) - {"COMMON"})
        return f"Use one alphabet for a username: this one mixes {' and '.join(s.title() for s in scripts)} letters."
    mine = skeleton(username)
    for other in existing or ():
        if other != username and skeleton(other) == mine:
            return "That username looks too much like someone else's; choose one that can't be mistaken for it."
    return None
