"""Issue 25's contract: after every write path of every system, a kept (cached) region equals a fresh drawing.

Drawn regions are kept by (region, character, version, kind of viewer, the table's settings and conditions):
characters/region_cache.py. A write that changes what a region shows without moving one of those would leave
a stale region on every page opened after it; this test primes the cache, makes each write, and compares.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from contextlib import contextmanager

import pytest
from django.template.loader import render_to_string
from django.test import override_settings
from django.urls import reverse

import rules
from campaigns import services as campaign_services
from campaigns.services import CampaignError
from campaigns.session.clock import set_daylight
from characters import services
from characters.models import Character
from characters.region_cache import CACHED_REGIONS, sheet_region
from characters.selectors import character_for
from characters.sheet_view import sheet_view
from live.hub import CSRF_SLOT
from rules.base import Item, RulesError, check_params
from tests.conftest import client_for, make_character

pytestmark = pytest.mark.django_db


def _fresh(user, seat, region: str) -> str:
    view = sheet_view(user, seat, regions=(region,), personal=False)
    return render_to_string(f"characters/sheet.html#{region}", view.context(oob=True, csrf_token=CSRF_SLOT))


def _viewers(character: Character, gm, player, other_player):
    return {"owner": player, "gm": gm, "peer": other_player}


def _check_every_region(character_id: int, viewers: dict, *, prime: bool = False) -> None:
    for kind, user in viewers.items():
        seat = character_for(user, character_id)
        for region in CACHED_REGIONS:
            kept = sheet_region(user, seat, region)
            if not prime:
                assert kept == _fresh(user, seat, region), f"{region} as the {kind} sees it is stale"
        # The whole page as kept (characters.region_cache.sheet_body) and as drawn afresh.
        url = reverse("characters:sheet", args=[character_id])
        page = _tokenless(client_for(user).get(url).content.decode())
        if not prime:
            with _nothing_kept():
                assert page == _tokenless(client_for(user).get(url).content.decode()), f"the {kind}'s page is stale"


def _tokenless(html: str) -> str:
    """A page without its CSRF tokens (masked afresh for every response), the time it was drawn (its stream's
    ``since``) and its log's times ("just now")."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    html = re.sub(r'"x-csrftoken": "[^"]+"', "", html)
    html = re.sub(r"since=[0-9.]+", "", html)  # when the page was drawn, for its stream
    return re.sub(r"<time [^>]*>[^<]*</time>", "", html)


@contextmanager
def _nothing_kept():
    """Draw as a process that has kept nothing would, without forgetting what this one keeps."""
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}):
        yield


def _write_paths(character: Character, game, gm, player, other_player) -> list[tuple[str, Callable[[], object]]]:
    """Every kind of write a sheet meets: tracks, each roll at its defaults, items, hirelings, names, notes, offers,
    and the table's settings and conditions."""
    pk = character.pk
    sheet = character.checked_sheet()
    # The table's first, while the character lives: the rolls below may kill it, and the dead show little.
    paths: list[tuple[str, Callable[[], object]]] = [
        ("settings", lambda: _change_a_setting(character, gm)),
        ("dark", lambda: set_daylight(campaign_id=character.campaign_id, daylight=False)),
        ("daylight", lambda: set_daylight(campaign_id=character.campaign_id, daylight=True)),
    ]
    for track in game.tracks(sheet):
        if track.adjustable:
            paths.append(
                (
                    f"{track.key} -1",
                    lambda key=track.key: services.character_adjust(character_id=pk, key=key, delta=-1, by=player),
                )
            )
    for n, procedure in enumerate(game.procedures().values()):
        roller = gm if procedure.gm_only else player

        def roll(procedure=procedure, roller=roller, n=n):
            params = check_params(procedure, Character.objects.get(pk=pk).checked_sheet(), {})
            return services.character_roll(
                character_id=pk, procedure=procedure.key, params=params, by=roller, rng=random.Random(n)
            )

        paths.append((f"roll {procedure.key}", roll))
    paths += [
        (
            "add an item",
            lambda: services.item_add(character_id=pk, item=Item(name="Rope", kind="gear", slots=1), by=player),
        ),
        (
            "remove an item",
            lambda: services.item_remove(
                character_id=pk, item_id=Character.objects.get(pk=pk).items.order_by("-pk")[0].pk, by=player
            ),
        ),
        ("hire", lambda: services.hireling_hire(character_id=pk, choices={}, by=player, rng=random.Random(1))),
        ("rename", lambda: services.character_rename(character_id=pk, name="Renamed", by=player)),
    ]
    return paths


def _change_a_setting(character: Character, gm):
    for setting in rules.system_for(character.system).rule_settings():
        if setting.kind == "bool":
            other = not setting.default
        elif setting.kind == "choice":
            other = next((value for value, _ in setting.choices if value != setting.default), None)
        else:
            continue
        if other is not None:
            return campaign_services.campaign_change_settings(
                campaign_id=character.campaign_id, values={setting.key: other}, by=gm
            )
    return None


def test_a_kept_region_equals_a_fresh_drawing_after_every_write(system_id, system, table, gm, player, other_player):  # noqa: F811
    character = make_character(player, table, system=system_id, name="Keeper")
    viewers = _viewers(character, gm, player, other_player)
    done = []
    for name, write in _write_paths(character, system, gm, player, other_player):
        _check_every_region(character.pk, viewers, prime=True)
        try:
            write()
        except (RulesError, CampaignError):
            continue  # refused: nothing changed
        done.append(name)
        _check_every_region(character.pk, viewers)
    assert len(done) >= 5, done


def test_an_edit_past_the_services_that_saves_the_row_still_reaches_the_kept_page(hero, player, as_user):
    """The admin saves a character (its row's save, as ModelAdmin.save_model) without a version: the kept
    regions and body are keyed by the row's saved time too, so the page shows the edit."""
    client = as_user(player)
    assert "Renamed in the admin" not in client.get(hero.get_absolute_url()).content.decode()
    hero.refresh_from_db()
    hero.notes = "Renamed in the admin"
    hero.save()  # no version moved: what an admin edit does
    assert "Renamed in the admin" in client.get(hero.get_absolute_url()).content.decode()
