"""Reading pages as a person does, and posting with or without htmx: shared by the app tests."""

from __future__ import annotations

import html
import re

import pytest

from characters.models import Character, Roll

HTMX = {"HTTP_HX_REQUEST": "true"}
BOTH = pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])


def text_of(response) -> str:
    """The page as a person reads it: tags dropped, entities decoded, whitespace squeezed."""
    body = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(body))


def field_text(response, attribute: str, name: str) -> str:
    """The text of the element marked ``attribute="name"`` (its <dd> when it holds a <dt>/<dd> pair)."""
    page = response.content.decode()
    match = re.search(rf'<(\w+)[^>]*{attribute}="{name}"[^>]*>(?:<dt>.*?</dt>)?(.*?)</\1>', page, re.S)
    assert match, f"no {attribute}={name} on the page"
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", match.group(2)))).strip()


def post(client, url: str, data: dict, htmx: bool):
    return client.post(url, data, **(HTMX if htmx else {}))


def unchanged(character: Character):
    """Snapshot of everything a refused request must leave alone."""
    character.refresh_from_db()
    return (
        character.version,
        character.state,
        list(character.items.values_list("name", "quantity", "worn")),
        list(character.hirelings.values_list("name", flat=True)),
        Roll.objects.filter(character=character).count(),
    )


def refused(response, htmx: bool, message: str) -> None:
    """A refusal: 422 for htmx (swapped so it shows), 400 for a plain post, with the reason on the page."""
    assert response.status_code == (422 if htmx else 400)
    assert message in text_of(response)
