"""The GM's table as a command centre (issue 26): at 1280×800 the party, the encounter, the requests and the log
are within one screen of scrolling and no tool is more than two screens down; on a phone the table comes in parts
of at most two screens each; the GM roll's odds follow typing; a request reaches a player on another part."""

from __future__ import annotations

import json
import os
import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.session.encounters import encounter_start, npc_add
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
REGIONS = (
    "party",
    "clock",
    "encounter",
    "requests",
    "request-form",
    "log",
    "gm-roll",
    "time",
    "notes",
    "summary",
    "table-rolls",
    "members",
    "invite",
)
MEASURE = """(ids) => { const out = {page: document.documentElement.scrollHeight};
  for (const id of ids) { const el = document.getElementById(id); if (!el) continue;
    const box = el.getBoundingClientRect(); out[id] = [Math.round(box.top + window.scrollY), Math.round(box.height)]; }
  return out; }"""


def _table(django_user_model, players: int = 4, npcs: int = 3):
    gm = django_user_model.objects.create_user("gm_c", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    heroes = []
    for n, name in enumerate(("Wren", "Ash", "Moss", "Flint")[:players]):
        player = django_user_model.objects.create_user(f"player_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        hero, _ = character_create(
            owner=player, system="chaos-conquest", choices={"name": name}, campaign=campaign, rng=random.Random(n)
        )
        heroes.append(hero)
    if npcs:
        encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm, rng=random.Random(1))
        for n in range(npcs):
            npc_add(campaign_id=campaign.pk, name=f"Goblin {n + 1}", stats={"stamina": 5, "av": 1})
    return campaign, heroes


def _measure(page) -> dict:
    figures = page.evaluate(MEASURE, list(REGIONS))
    if os.environ.get("LANTERN_MEASURE"):  # the figures for the note
        with open(os.environ["LANTERN_MEASURE"], "a") as out:
            out.write(json.dumps({"viewport": page.viewport_size, **figures}) + "\n")
    return figures


def test_the_gm_finds_party_encounter_requests_and_log_within_a_screen_at_1280(new_page, django_user_model):
    campaign, _ = _table(django_user_model)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    figures = _measure(gm)
    if os.environ.get("LANTERN_SHOT"):
        gm.screenshot(path=os.environ["LANTERN_SHOT"], full_page=True)
    for region in ("party", "encounter", "requests", "log"):
        assert figures[region][0] < 800, (region, figures)  # starts within one screen of scrolling
    for region in ("gm-roll", "time", "notes", "request-form", "table-rolls"):
        assert figures[region][0] < 1600, (region, figures)
    # The party's vitals stay in view as the GM scrolls down to the notes.
    gm.locator("#notes").scroll_into_view_if_needed()
    party = gm.locator("#party").bounding_box()
    assert party is not None and party["y"] >= 0 and party["y"] < 100, party
