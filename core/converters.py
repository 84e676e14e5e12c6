"""Ids in URLs and query strings: plain digits within the database's integer range, or not an id at all.

Django's ``<int:…>`` takes any number of digits, and a 30-digit id overflows the database's bigint: a 500
instead of a 404 (issue 9, finding 8).
"""

from __future__ import annotations

import re

from django.urls import register_converter

MAX_ID = 2**63 - 1  # the largest bigint, on PostgreSQL and SQLite alike
_ID = re.compile(r"[0-9]{1,19}")  # ASCII digits only: "²" and "٣" pass str.isdigit()


def parse_id(raw: object) -> int | None:
    """The id ``raw`` names, or None when it names none (empty, words, other scripts' digits, too big)."""
    text = str(raw).strip() if raw is not None else ""
    if not _ID.fullmatch(text):
        return None
    value = int(text)
    return value if 1 <= value <= MAX_ID else None


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        if int(value) > MAX_ID:
            raise ValueError("beyond the database's integer range")  # the URL matches nothing: a 404
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
