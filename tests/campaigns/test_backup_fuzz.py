"""A crafted campaign backup is refused with a sentence, or restores a campaign whose every page draws (issue 35,
item 12).

A roll's die ``sides`` as ``{"$ref": 1}`` or a 6,000-character string, lists and long texts in a roll's inputs
or odds: the backup was accepted, and the restored table answered 500 for ever. Here every leaf of a real export
(a table in play: two characters with gear, a fight with NPCs, hits, notes, the log) is replaced in turn by a
wrong type, a huge text, a nested structure, a negative or huge number; each file is restored through the page as
a person uploads it, and then must have been refused (a 400 and nothing created) or give a campaign whose pages,
sheets, histories, roll corrections and its own backup all answer 200 (the suite checks that the HTML is well
formed on every page it reads).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse

from campaigns.backup import export_campaign
from campaigns.models import Campaign
from rules import SYSTEMS
from tests.campaigns.test_backup import _table_in_play
from tests.pages import text_of

pytestmark = pytest.mark.django_db

Path = tuple[str | int, ...]
MUTANTS: list[Any] = [{"$ref": 1}, [1, [2, {"a": None}]], "x" * 6_000, -1, 2**63, None]


def _leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every value that holds no other (a text, a number, a flag, null, an empty list or object) of the first entry
    of each list: the others are checked by the same code (the second character, log line, NPC, item...)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        yield from _leaves(value[0], (*path, 0))
    else:
        yield path


def _mutated(document: dict[str, Any], path: Path, value: Any) -> bytes:
    copy = json.loads(json.dumps(document))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return json.dumps(copy).encode()


def _pages(campaign: Campaign, path: Path) -> list[str]:
    """The pages that draw the part of the file at ``path`` (the table's page draws nearly all of it)."""
    pages = [campaign.get_absolute_url(), reverse("campaigns:backup_export", args=[campaign.pk])]
    characters = list(campaign.characters.order_by("pk"))
    if path[0] == "table":
        pages.append(reverse("campaigns:settings", args=[campaign.pk]))
    if path[0] == "characters" and len(path) > 1 and isinstance(path[1], int) and path[1] < len(characters):
        character = characters[path[1]]
        pages += [
            character.get_absolute_url(),
            reverse("characters:history", args=[character.pk]),
            reverse("characters:export", args=[character.pk]),
            reverse("campaigns:card", args=[campaign.pk, character.pk]),
        ]
    if path[0] in ("rolls", "fight"):
        pages += [character.get_absolute_url() for character in characters]  # a sheet draws its own log
        pages.append(reverse("campaigns:older_rolls", args=[campaign.pk]) + f"?before={2**62}")  # the whole log
        pages += [reverse("characters:roll_fix", args=[pk]) for pk in campaign.rolls.values_list("pk", flat=True)]
    return pages


class _Undo(Exception):
    """Raised to roll back one restore, so each file starts from the same database."""


def _restore(client: Client, raw: bytes, path: Path) -> list[str]:
    """Upload ``raw``; what went wrong (nothing: refused with a sentence, or restored and every page drew)."""
    problems: list[str] = []
    campaigns = Campaign.objects.count()
    try:
        with transaction.atomic():
            cache.clear()  # region caches are kept by id and version, which a rolled-back restore hands out again
            upload = SimpleUploadedFile("crafted.lantern-campaign.json", raw, content_type="application/json")
            answer = client.post(reverse("campaigns:backup_import"), {"file": upload})
            if answer.status_code == 400:
                if Campaign.objects.count() != campaigns:
                    problems.append("refused, yet a campaign was created")
            elif answer.status_code != 302:
                problems.append(f"the restore answered {answer.status_code}")
            else:
                restored = Campaign.objects.order_by("-pk").first()
                assert restored is not None
                for page in _pages(restored, path):
                    status = client.get(page).status_code
                    if status != 200:
                        problems.append(f"{page} answered {status}")
            raise _Undo
    except _Undo:
        pass
    except Exception as error:  # noqa: BLE001 - a 500 (the test client raises it) is what the test counts
        problems.append(f"{type(error).__name__}: {str(error)[:200]}")
    return problems


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_every_leaf_of_a_backup_replaced_by_something_crafted_is_refused_or_restores_a_table_that_draws(
    system, gm, player, other_player, stranger
):
    # Each system's sheet (Chaos & Conquest's nests 4 deep), gear, a fight with NPCs and statuses, hits, a log.
    document = export_campaign(_table_in_play(system, gm, player, other_player), gm)
    client = Client()
    client.force_login(stranger)
    for part in ("table", "characters", "rolls"):
        assert _restore(client, json.dumps(document).encode(), (part, 0)) == [], "the real export restores and draws"

    failures: dict[str, list[str]] = {}
    paths = list(_leaves(document))
    assert len(paths) > 60
    for path in paths:
        for value in MUTANTS:
            problems = _restore(client, _mutated(document, path, value), path)
            if problems:
                failures[f"{'/'.join(map(str, path))} = {json.dumps(value)[:30]}"] = problems
    assert not failures, f"{len(failures)} crafted files broke a page: " + json.dumps(dict(list(failures.items())[:15]))


def _first_roll_with_dice(document: dict[str, Any]) -> dict[str, Any]:
    return next(row for row in document["rolls"] if row["dice"])


CRAFTED = {
    "a die's sides as a reference": lambda roll: roll["dice"][0].update(sides={"$ref": 1}),
    "a die's sides as 6,000 characters": lambda roll: roll["dice"][0].update(sides="6" * 6_000),
    "a die's face past any die": lambda roll: roll["dice"][0].update(face=10**6),
    "a die with more than a die holds": lambda roll: roll["dice"][0].update(script="<b>"),
    "a list of lists in the inputs": lambda roll: roll["inputs"].update(ability=[[1, [2]]]),
    "an object in the inputs": lambda roll: roll["inputs"].update(ability={"a": 1}),
    "a long text in the inputs": lambda roll: roll["inputs"].update(ability="x" * 6_000),
    "a list as odds": lambda roll: roll["odds"].update(success=[1, 2]),
    "a long text as odds": lambda roll: roll["odds"].update(success="1/" + "2" * 6_000),
    "odds that are no fraction": lambda roll: roll["odds"].update(success="likely"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_the_crafted_log_lines_of_the_report_are_refused_with_a_sentence(
    case, as_user, gm, player, other_player, stranger
):
    document = export_campaign(_table_in_play("fell-draft", gm, player, other_player), gm)
    CRAFTED[case](_first_roll_with_dice(document))
    campaigns = Campaign.objects.count()
    upload = SimpleUploadedFile("crafted.json", json.dumps(document).encode(), content_type="application/json")
    answer = as_user(stranger).post(reverse("campaigns:backup_import"), {"file": upload})
    assert answer.status_code == 400
    assert "roll" in text_of(answer), text_of(answer)[-300:]
    assert Campaign.objects.count() == campaigns
