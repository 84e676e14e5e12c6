"""Per-user limits (issue 9, finding 10): open streams, rolls per minute, item rows on every path.

Each refusal is readable and changes nothing. Streams are counted per app process (the hub holds them);
rolls are counted from the roll log, so that cap holds across processes.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

import live.hub as live
from characters import services
from characters.models import CatalogueItem, Item, Roll
from rules import RulesError
from rules.base import Item as RulesItem
from rules.base import RollResult
from tests.campaigns.live_helpers import Stream, run, session_cookie
from tests.pages import HTMX, form_fields, roll_form, text_of, unchanged

pytestmark = pytest.mark.django_db(transaction=True)


def test_streams_beyond_the_per_user_cap_are_refused_with_429(settings, campaign, player, gm):
    settings.SSE_MAX_STREAMS_PER_USER = 3
    path = reverse("campaigns:events", args=[campaign.pk])
    mine, theirs = session_cookie(player), session_cookie(gm)

    async def scenario():
        streams = [await Stream(path, mine).open() for _ in range(3)]
        refused = await Stream(path, mine).open()
        body = await refused.chunk()
        await refused.task
        other_user = await Stream(path, theirs).open()  # the cap is per account, not per table
        open_count = live.hub.streams_of(player.pk)
        await streams[0].close()
        again = await Stream(path, mine).open()  # a closed tab frees its place
        for stream in [*streams[1:], other_user, again]:
            await stream.close()
        return [s.status for s in streams], refused.status, body, other_user.status, open_count, again.status

    statuses, status, body, other_status, open_count, again = run(scenario())
    assert statuses == [200, 200, 200] and other_status == 200 and again == 200
    assert status == 429 and b"Too many Lantern pages" in body
    assert open_count == 3


def test_the_django_view_of_the_stream_has_the_same_cap(settings, campaign, player, as_user, monkeypatch):
    settings.SSE_MAX_STREAMS_PER_USER = 2
    monkeypatch.setattr(live.hub, "streams_of", lambda user_id: 2)
    response = as_user(player).get(reverse("campaigns:events", args=[campaign.pk]))
    assert response.status_code == 429 and b"close some tabs" in response.content


def test_rolls_beyond_the_per_minute_cap_are_refused_and_nothing_is_saved(settings, hero, player, as_user):
    # The hero's creation rolls count too: a flood of new characters would also push the log away.
    settings.ROLLS_PER_MINUTE = Roll.objects.filter(roller=player).count() + 5
    client = as_user(player)
    url, fields = roll_form(client, hero, "test", ability="BOD", visibility="public")
    for _ in range(5):
        assert client.post(url, fields, **HTMX).status_code == 200
    before = unchanged(hero)
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 422 and f"{settings.ROLLS_PER_MINUTE} rolls in a minute" in text_of(response)
    assert unchanged(hero) == before


def test_the_gms_free_roll_has_the_same_cap(settings, campaign, gm, as_user):
    settings.ROLLS_PER_MINUTE = 2
    client = as_user(gm)
    url = reverse("campaigns:gm_roll", args=[campaign.pk])
    fields = form_fields(client.get(campaign.get_absolute_url()), url, count="1", sides="6", visibility="public")
    for _ in range(2):
        client.post(url, fields, **HTMX)
    count = Roll.objects.filter(roller=gm).count()
    response = client.post(url, fields, **HTMX)
    assert "rolls in a minute" in text_of(response)
    assert Roll.objects.filter(roller=gm).count() == count


@pytest.fixture
def full_sheet(hero):
    """A hero carrying exactly as many item rows as a sheet may hold."""
    room = services.MAX_ITEMS - hero.items.count()
    Item.objects.bulk_create(
        [Item(character=hero, name=f"Pebble {n}", slots=0, position=1000 + n) for n in range(room)]
    )
    return hero


def test_the_catalogue_stops_at_the_item_cap(full_sheet, player):
    entry = CatalogueItem.objects.create(system="fell-draft", name="Cap test rope", kind="gear", cost=1, slots=1)
    with pytest.raises(RulesError, match=f"at most {services.MAX_ITEMS} rows"):
        services.item_add_from_catalogue(character_id=full_sheet.pk, entry_id=entry.pk, by=player)
    assert full_sheet.items.count() == services.MAX_ITEMS


def test_a_custom_item_stops_at_the_item_cap(full_sheet, player):
    with pytest.raises(RulesError, match="rows"):
        services.item_add(character_id=full_sheet.pk, item=RulesItem(name="One more"), by=player)
    assert full_sheet.items.count() == services.MAX_ITEMS


def test_a_roll_that_would_add_items_past_the_cap_is_refused_whole(full_sheet, player, monkeypatch):
    """Items a roll adds (loot, a forged weapon) count too; the roll itself is undone with them."""
    procedure = services.system_for("fell-draft").procedures()["test"]
    rolls = Roll.objects.count()

    def loot(sheet, params, rng):
        return RollResult(procedure="test", label="Loot", outcome="pass", summary="", items_added=(RulesItem("Gem"),))

    monkeypatch.setattr(type(procedure), "roll", lambda self, sheet, params, rng: loot(sheet, params, rng))
    with pytest.raises(RulesError, match="rows"):
        services.character_roll(character_id=full_sheet.pk, procedure="test", params={}, by=player)
    assert full_sheet.items.count() == services.MAX_ITEMS and Roll.objects.count() == rolls
