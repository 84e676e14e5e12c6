"""The one reader of every JSON request body (the offline changes' endpoint, the API): a body it cannot take is
refused with a sentence and a 400 before anything looks at it, never a 500 (issue 35, item 10).

``json.loads`` alone lets through what later code trips on: nesting deep enough to exhaust the stack (a
``RecursionError``, not a ``ValueError``), whole numbers of thousands of digits (Python refuses past 4,300, and
a bigint column far sooner), ``NaN`` and ``1e999``, and NUL characters or lone surrogates that no database text
column stores. Characters and campaign files have their own reader with the same bounds
(``characters.transfer.read_json``), whose sentences speak of a file.
"""

from __future__ import annotations

import json
import math
from typing import Any

from core.errors import Refusal

MAX_DEPTH = 32  # the deepest body the app sends is 3 levels (a hand roll's fields)
MAX_DIGITS = 19  # a whole number's digits, as many as a bigint has; each field's reader checks its own bounds
NOT_AN_OBJECT = "Send the body as a JSON object."


class MalformedJson(Refusal):
    """A body that is not the JSON object a request needs: the sentence says what is wrong with it."""

    status = 400


def json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object within the bounds above, or ``MalformedJson`` saying why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedJson("Send the body as UTF-8 text: some of its bytes are not.") from None
    try:
        data = json.loads(text, parse_int=_whole_number, parse_float=_finite_number, parse_constant=_no_constant)
    except RecursionError:
        raise MalformedJson(f"Send a body nested at most {MAX_DEPTH} deep.") from None
    except MalformedJson:
        raise
    except ValueError:  # json.JSONDecodeError, and int()'s own limit
        raise MalformedJson(NOT_AN_OBJECT) from None
    if not isinstance(data, dict):
        raise MalformedJson(NOT_AN_OBJECT)
    _check_values(data)
    return data


def _whole_number(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise MalformedJson(f"Send whole numbers of at most {MAX_DIGITS} digits.")
    return int(text)


def _finite_number(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise MalformedJson("Send numbers a computer can hold: this one is too large.")
    return number


def _no_constant(name: str) -> float:
    raise MalformedJson(f"Send numbers only: {name} is not one.")


def _check_values(data: dict[str, Any]) -> None:
    """Depth and texts, walked without recursion (json.loads accepts a thousand levels)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise MalformedJson(f"Send a body nested at most {MAX_DEPTH} deep.")
        if isinstance(value, dict):
            stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and ("\x00" in value or not value.isascii() and _has_surrogate(value)):
            raise MalformedJson("Send text without NUL characters or broken (lone surrogate) escapes.")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
