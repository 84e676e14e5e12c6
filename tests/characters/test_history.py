"""History and undo through real HTTP: each change kept field by field, reverted as a new change, edits after
creation, and who may do each (owner, GM, another player, a stranger)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import services
from characters.models import Change, Item
from tests.conftest import make_character
from tests.pages import HTMX, form_fields, text_of, unchanged

pytestmark = pytest.mark.django_db


def _hp_down(hero, by):
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=by)
    hero.refresh_from_db()
    return hero.changes.first()


def _revert(client, hero, change, reason="typo", **extra):
    url = reverse("characters:revert", args=[hero.pk, change.pk])
    page = client.get(reverse("characters:history", args=[hero.pk]))
    fields = form_fields(page, url, reason=reason, **extra)
    return client.post(url, fields)


def test_a_change_keeps_each_field_before_and_after_and_the_history_shows_it(hero, player, as_user):
    hp = hero.state["hp"]
    change = _hp_down(hero, player)
    assert change.before == {"state": {"hp": hp}} and change.after == {"state": {"hp": hp - 1}}
    page = as_user(player).get(reverse("characters:history", args=[hero.pk]))
    assert page.status_code == 200
    text = text_of(page)
    assert "HP −1" in text or "HP -1" in text
    assert f"HP {hp} {hp - 1}" in text and "by player" in text


def test_the_owner_reverts_a_change_as_a_new_logged_change(hero, player, as_user):
    hp = hero.state["hp"]
    change = _hp_down(hero, player)
    response = _revert(as_user(player), hero, change, reason="misclick")
    assert response.status_code == 302
    hero.refresh_from_db()
    assert hero.state["hp"] == hp
    revert = hero.changes.first()
    assert revert.reverts == change and revert.reason == "misclick" and revert.what.startswith("Reverted")
    assert revert.before == {"state": {"hp": hp - 1}} and revert.after == {"state": {"hp": hp}}


def test_a_change_is_reverted_once_and_a_stale_page_is_refused(hero, player, as_user):
    change = _hp_down(hero, player)
    client = as_user(player)
    url = reverse("characters:revert", args=[hero.pk, change.pk])
    fields = form_fields(client.get(reverse("characters:history", args=[hero.pk])), url, reason="oops")
    assert client.post(url, fields).status_code == 302
    before = unchanged(hero)
    response = client.post(url, fields, follow=True)  # the same form again: stale, and already reverted
    assert "changed this sheet" in text_of(response) or "already reverted" in text_of(response)
    fields["version"] = [str(before[0])]
    response = client.post(url, fields, follow=True)
    assert "already reverted" in text_of(response)
    assert unchanged(hero) == before


def test_a_revert_needs_a_reason_and_refuses_when_the_field_moved_on(hero, player, as_user):
    change = _hp_down(hero, player)
    client = as_user(player)
    response = _revert(client, hero, change, reason="   ")
    assert response.status_code == 302
    assert Change.objects.filter(reverts=change).count() == 0
    _hp_down(hero, player)  # HP moved on since
    url = reverse("characters:revert", args=[hero.pk, change.pk])
    fields = form_fields(client.get(reverse("characters:history", args=[hero.pk])), url, reason="oops")
    response = client.post(url, fields, follow=True)
    assert "HP changed again" in text_of(response)
    assert not Change.objects.filter(reverts=change).exists()


def test_a_change_of_another_character_cannot_be_reverted_through_this_one(hero, rival, player, other_player, as_user):
    theirs = _hp_down(rival, other_player)
    before = (unchanged(hero), unchanged(rival))
    url = reverse("characters:revert", args=[hero.pk, theirs.pk])
    response = as_user(player).post(url, {"reason": "mine now", "version": hero.version}, follow=True)
    assert "not in this character's history" in text_of(response)
    assert (unchanged(hero), unchanged(rival)) == before


@pytest.mark.parametrize(("who", "status"), [("player", 302), ("gm", 302), ("other_player", 404), ("stranger", 404)])
def test_who_may_revert(hero, player, request, as_user, who, status):
    change = _hp_down(hero, player)
    user = request.getfixturevalue(who)
    response = as_user(user).post(
        reverse("characters:revert", args=[hero.pk, change.pk]), {"reason": "because", "version": hero.version}
    )
    assert response.status_code == status
    assert Change.objects.filter(reverts=change).exists() == (status == 302)


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 200), ("stranger", 404)])
def test_who_may_read_the_history(hero, player, request, as_user, who, status):
    _hp_down(hero, player)
    response = as_user(request.getfixturevalue(who)).get(reverse("characters:history", args=[hero.pk]))
    assert response.status_code == status
    if status == 200:
        assert ("Revert" in text_of(response)) == (who in ("player", "gm"))


def test_the_gm_brings_back_a_dead_chaos_and_conquest_character(gm, player, as_user):
    """Seed 002 (Stress): a tenth stress in ten slots kills; the GM's revert puts the sheet back as it was."""
    campaign = Campaign.objects.create(name="Iron Crown", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    Membership.objects.create(campaign=campaign, user=player)
    hero = make_character(player, campaign, system="chaos-conquest", name="Ash")
    hero.state = {**hero.state, "stress": 9}
    hero.save()
    Item.objects.filter(character=hero).delete()  # ten empty slots: nine stress and one to fill
    services.character_adjust(character_id=hero.pk, key="stress", delta=1, by=player)
    hero.refresh_from_db()
    assert hero.state["status"] == "dead"
    death = hero.changes.first()
    response = _revert(as_user(gm), hero, death, reason="the GM ruled the blow missed")
    assert response.status_code == 302
    hero.refresh_from_db()
    assert hero.state["status"] == "fine" and hero.state["stress"] == 9


def test_drop_offers_undo_right_after_and_the_item_comes_back(hero, player, as_user):
    client = as_user(player)
    item = hero.items.first()
    page = client.get(hero.get_absolute_url())
    url = reverse("characters:item_remove", args=[hero.pk, item.pk])
    response = client.post(url, form_fields(page, url), **HTMX)
    assert response.status_code == 200 and 'class="undo"' in response.content.decode()
    assert not hero.items.filter(pk=item.pk).exists()
    change = hero.changes.first()
    undo_url = reverse("characters:revert", args=[hero.pk, change.pk])
    response = client.post(undo_url, form_fields(response, undo_url), **HTMX)
    assert response.status_code == 200
    back = hero.items.get(name=item.name)
    assert (back.quantity, back.slots, back.data) == (item.quantity, item.slots, item.data)
    assert hero.changes.first().reverts == change


def test_only_the_one_who_made_a_change_is_offered_its_undo(hero, player, gm, as_user):
    _hp_down(hero, player)
    assert 'class="undo"' in as_user(player).get(hero.get_absolute_url()).content.decode()
    assert 'class="undo"' not in as_user(gm).get(hero.get_absolute_url()).content.decode()


# --- edit details after creation ----------------------------------------------------------------------------


def _edit(client, hero, **changes):
    url = reverse("characters:edit", args=[hero.pk])
    return client.post(url, form_fields(client.get(url), url, **changes))


def test_the_owner_renames_and_edits_the_details_in_one_logged_change(hero, player, as_user):
    response = _edit(
        as_user(player), hero, name="Wren the Bold", notes="Owes the miller 3 coin.", detail_background="Miller"
    )
    assert response.status_code == 302
    hero.refresh_from_db()
    assert (hero.name, hero.notes, hero.state["background"]) == ("Wren the Bold", "Owes the miller 3 coin.", "Miller")
    change = hero.changes.first()
    assert change.before["name"] == "Wren" and change.after["state"]["background"] == "Miller"
    sheet = as_user(player).get(hero.get_absolute_url())
    assert (
        "Owes the miller 3 coin." in text_of(sheet)
        and reverse("characters:edit", args=[hero.pk]) in sheet.content.decode()
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"name": "   "}, "Give it a name"), ({"detail_age": "-4"}, "Age"), ({"notes": "x" * 2001}, "2000")],
)
def test_bad_details_are_refused_readably_and_change_nothing(hero, player, as_user, changes, message):
    before = (unchanged(hero), hero.name, hero.notes)
    response = _edit(as_user(player), hero, **changes)
    assert response.status_code == 400 and message in text_of(response)
    hero.refresh_from_db()
    assert (unchanged(hero), hero.name, hero.notes) == before


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("other_player", 404), ("stranger", 404)])
def test_who_may_edit_the_details(hero, request, as_user, who, status):
    assert as_user(request.getfixturevalue(who)).get(reverse("characters:edit", args=[hero.pk])).status_code == status


def test_a_stale_edit_form_is_refused(hero, player, as_user):
    client = as_user(player)
    url = reverse("characters:edit", args=[hero.pk])
    fields = form_fields(client.get(url), url, name="Old tab")
    _hp_down(hero, player)
    before = unchanged(hero)
    response = client.post(url, fields)
    assert response.status_code == 400 and "changed this sheet" in text_of(response)
    assert unchanged(hero) == before
