"""A GM at the roll cap (issue 23, item 10): every action that would roll answers with the cap's sentence and a
4xx, in every system, and stores nothing; an action that rolls nothing still works.

Before (4480856), starting a fight and a new round (the combat order's dice: Chaos & Conquest, Grit & Flesh) and
Fell (late)'s NPC damage (the critical harm test) raised the rules' error through session views that caught only
the campaign's: 5 of these actions answered 500.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns import session
from campaigns.models import Encounter, Npc
from characters.models import Roll
from characters.services import store_free_roll
from rules import SYSTEMS
from rules.base import check_params
from rules.errors import Refusal
from rules.free import FREE_ROLL
from tests.conftest import make_character, make_table
from tests.pages import HTMX, text_of

pytestmark = pytest.mark.django_db

CAP_WORDS = "rolls in a minute"


def _gm_rolls(gm) -> int:
    return Roll.objects.filter(roller=gm, created_at__gte=timezone.now() - timedelta(minutes=1)).count()


def _actions(system_id: str, campaign, npc, character, asked):
    """Each GM action at the table: (name, url, form data, whether it always rolls)."""
    system = SYSTEMS[system_id]
    npc_roll = next(iter(system.npc_rolls()), "")
    table_roll = next(iter(system.table_procedures()), None)
    unit = system.time_units()[0].key
    sheet_roll = next(key for key, proc in system.procedures().items() if not proc.gm_only)
    actions = [
        ("start fight", reverse("campaigns:encounter_action", args=[campaign.pk, "start"]), {"name": "Ghouls"}, False),
        ("next round", reverse("campaigns:encounter_action", args=[campaign.pk, "next"]), {}, False),
        ("NPC damage", reverse("campaigns:npc_action", args=[campaign.pk, npc.pk, "damage"]), {"amount": "30"}, False),
        ("let time pass", reverse("campaigns:time_advance", args=[campaign.pk]), {"unit": unit, "count": "1"}, False),
        (
            "GM roll",
            reverse("campaigns:gm_roll", args=[campaign.pk]),
            {"count": "1", "sides": "6", "visibility": "public"},
            True,
        ),
        (
            "request answered by the GM",
            reverse("campaigns:request_answer", args=[campaign.pk, asked.pk, character.pk]),
            {},
            True,
        ),
        (
            "roll from a sheet",
            reverse("characters:roll", args=[character.pk, sheet_roll]),
            {"visibility": "public"},
            True,
        ),
        ("end fight", reverse("campaigns:encounter_action", args=[campaign.pk, "end"]), {}, False),
    ]
    if npc_roll:
        url = reverse("campaigns:npc_action", args=[campaign.pk, npc.pk, "roll"])
        actions.insert(3, ("NPC roll", url, {"key": npc_roll, "visibility": "public"}, True))
    if table_roll is not None:
        url = reverse("campaigns:table_roll", args=[campaign.pk, table_roll])
        actions.append(("table roll", url, {"visibility": "public"}, True))
    return actions


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_every_gm_action_at_the_roll_cap_answers_the_cap_sentence_never_500(system_id, gm, player, as_user, settings):
    campaign = make_table(system_id, gm, player, name="Capped")
    character = make_character(player, campaign, system=system_id, name="Wren")
    session.encounter_start(campaign_id=campaign.pk, name="Warm-up", by=gm)
    npc = session.npc_add(campaign_id=campaign.pk, name="Ghoul", stats={}).row
    procedure = next(iter(session.requestable(SYSTEMS[system_id])))
    asked = session.request_create(
        campaign_id=campaign.pk, procedure=procedure, fixed={}, character_ids=[character.pk], minutes=30, by=gm
    ).row
    Encounter.objects.filter(campaign=campaign).update(active=False)  # "start fight" starts the next one
    store_free_roll(campaign=campaign, params=check_params(FREE_ROLL, None, {}), by=gm, visibility="public")
    settings.ROLLS_PER_MINUTE = _gm_rolls(gm)  # not one more
    client = as_user(gm)
    refused = []
    for name, url, data, always_rolls in _actions(system_id, campaign, npc, character, asked):
        if name == "next round" and not Encounter.objects.filter(campaign=campaign, active=True).exists():
            Encounter.objects.filter(campaign=campaign).update(active=True)  # the start was refused: the warm-up
        stats = dict(Npc.objects.get(pk=npc.pk).stats)
        response = client.post(url, data, **HTMX)
        assert response.status_code in (200, 422), (name, response.status_code)
        if response.status_code == 422:
            refused.append(name)
            assert CAP_WORDS in text_of(response), (name, text_of(response)[:300])
        if always_rolls:
            assert response.status_code == 422, name
        if name == "NPC damage" and response.status_code == 422:
            assert Npc.objects.get(pk=npc.pk).stats == stats  # refused whole
    assert _gm_rolls(gm) == settings.ROLLS_PER_MINUTE  # nothing stored past the cap
    assert "NPC damage" in refused or system_id != "fell-late"  # its critical harm test rolls
    if SYSTEMS[system_id].combat_order(1, random.Random(1)).dice:
        assert {"start fight", "next round"} <= set(refused)


def test_a_refusal_that_escapes_its_view_answers_its_sentence_and_a_4xx(rf, gm):
    """The one place (core.refusals): htmx gets the sentence in the page's message area, a plain request a page."""
    from core.refusals import RefusalMiddleware

    middleware = RefusalMiddleware(lambda request: None)
    for htmx, status in ((True, 422), (False, 400)):
        request = rf.post("/anything/")
        request.user = gm
        request.htmx = htmx
        response = middleware.process_exception(request, Refusal("The table is closed tonight."))
        assert response.status_code == status
        assert "The table is closed tonight." in response.content.decode()
        assert (response.get("HX-Retarget") == "#messages") is htmx
    assert middleware.process_exception(request, KeyError("a bug")) is None  # bugs stay 500s
