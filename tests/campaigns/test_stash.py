"""The party's stash (issue 41): loot in, items and coins between sheets and the stash in one write that changes
both sides or neither, coins split by the table's rule, both histories and their reverts, who may do what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import commands, stash
from campaigns.models import StashEntry, StashItem
from characters import table
from characters.commands import NotHere
from characters.models import Change, Hireling, Item
from live import events as ev
from rules import RulesError
from rules import base as rules_base
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db


@pytest.fixture
def cc(gm, player, other_player):
    """A Chaos & Conquest table: retainers take half a share (hired-help.md)."""
    return make_table("chaos-conquest", gm, player, other_player, name="Barrow")


@pytest.fixture
def wren(player, cc):
    return make_character(player, cc, system="chaos-conquest", name="Wren", seed=3)


@pytest.fixture
def ash(other_player, cc):
    return make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=5)


def _loot(campaign, gm, name="Silver chalice", quantity=1, kind="treasure", slots=1):
    item = rules_base.Item(name=name, kind=kind, slots=slots, quantity=quantity)
    stash.stash_add_item(campaign_id=campaign.pk, item=item, by=gm)
    return _row(campaign, name)


def _row(campaign, name):
    return StashItem.objects.filter(stash__campaign=campaign, name=name).first()


def _coins(character):
    character.refresh_from_db()
    return character.state["coins"]


def _stash_coins(campaign):
    campaign.refresh_from_db()
    return campaign.stash.coins


# --- moves: one write, both sides ---------------------------------------------------------------------------------


def test_taking_an_item_moves_it_onto_the_sheet_and_out_of_the_stash_in_one_write(cc, wren, gm, player):
    _loot(cc, gm, quantity=2)
    row = _row(cc, "Silver chalice")
    heard = Since(cc.pk)
    stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, quantity=1, by=player)
    assert _row(cc, "Silver chalice").quantity == 1
    assert wren.items.get(name="Silver chalice").quantity == 1
    change = Change.objects.filter(character=wren).first()
    assert change.what == "Took Silver chalice from the stash"
    entry = StashEntry.objects.filter(campaign=cc).first()
    assert (
        entry.change == change and entry.character == wren and entry.what == "Wren took Silver chalice from the stash"
    )
    # one journal entry: the sheet's regions and the stash, together
    assert ev.StashChanged(character=wren.pk) in heard.events()
    assert any(isinstance(e, ev.SheetChanged) and e.character == wren.pk for e in heard.events())
    assert len(heard.entries()) == 1


def test_putting_an_item_in_moves_it_off_the_sheet_and_stacks_with_its_like(cc, wren, gm, player):
    _loot(cc, gm, name="Moon lamp", kind="light", quantity=2)
    row = _row(cc, "Moon lamp")
    stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, quantity=1, by=player)
    held = wren.items.get(name="Moon lamp")
    stash.stash_put(campaign_id=cc.pk, character_id=wren.pk, item_id=held.pk, by=player)
    assert not wren.items.filter(name="Moon lamp").exists()
    assert _row(cc, "Moon lamp").pk == row.pk and _row(cc, "Moon lamp").quantity == 2
    assert Change.objects.filter(character=wren).first().what == "Put Moon lamp in the stash"


def test_a_take_the_sheet_cannot_carry_changes_neither_side(cc, wren, gm, player):
    _loot(cc, gm, name="Anvil", kind="gear", slots=20)
    version, items = wren.version, wren.items.count()
    with pytest.raises(RulesError, match="No room for Anvil"):
        stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=_row(cc, "Anvil").pk, by=player)
    wren.refresh_from_db()
    assert (wren.version, wren.items.count()) == (version, items)
    assert _row(cc, "Anvil").quantity == 1
    assert StashEntry.objects.filter(campaign=cc).count() == 1  # only the GM's loot


def test_the_second_taker_reads_a_sentence_and_nothing_is_half_saved(cc, wren, ash, gm, player, other_player):
    row = _loot(cc, gm)
    stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, by=player)
    version = ash.version
    with pytest.raises(stash.Taken, match="no longer in the stash"):
        stash.stash_take(campaign_id=cc.pk, character_id=ash.pk, stash_item_id=row.pk, by=other_player)
    ash.refresh_from_db()
    assert ash.version == version and not ash.items.filter(name="Silver chalice").exists()
    assert stash.Taken.status == 409


def test_coins_move_both_ways_through_the_systems_purse(cc, wren, gm, player):
    stash.stash_add_coins(campaign_id=cc.pk, amount=100, by=gm)
    before = _coins(wren)
    stash.stash_take_coins(campaign_id=cc.pk, character_id=wren.pk, amount=30, by=player)
    assert (_coins(wren), _stash_coins(cc)) == (before + 30, 70)
    stash.stash_put_coins(campaign_id=cc.pk, character_id=wren.pk, amount=10, by=player)
    assert (_coins(wren), _stash_coins(cc)) == (before + 20, 80)
    with pytest.raises(stash.Taken, match="The stash holds"):
        stash.stash_take_coins(campaign_id=cc.pk, character_id=wren.pk, amount=81, by=player)
    with pytest.raises(RulesError):
        stash.stash_put_coins(campaign_id=cc.pk, character_id=wren.pk, amount=before + 21, by=player)
    assert (_coins(wren), _stash_coins(cc)) == (before + 20, 80)


# --- the coins split ----------------------------------------------------------------------------------------------


def test_a_split_pays_equal_shares_half_a_share_to_a_retainer_and_leaves_the_rest(cc, wren, ash, gm):
    """hired-help.md, Shares of Treasure: 2 PCs and a retainer divide by 2.5; a porter (paid by the day) takes none."""
    Hireling.objects.create(character=wren, name="Bertil", kind="retainer", state={})
    Hireling.objects.create(character=ash, name="Pim", kind="hireling", state={"role": "porter"})
    stash.stash_add_coins(campaign_id=cc.pk, amount=137, by=gm)
    wren_before, ash_before = _coins(wren), _coins(ash)
    done = stash.coins_split(campaign_id=cc.pk, character_ids=[ash.pk, wren.pk], amount=137, by=gm)
    # 137 / 2.5 = 54.8: 54 each, the retainer floor(27.4) = 27, 137 - 108 - 27 = 2 left
    assert (_coins(wren) - wren_before, _coins(ash) - ash_before, _stash_coins(cc)) == (54, 54, 2)
    assert "Bertil (hireling) 2s 3p" in done.row.what and "; 2p left in the stash" in done.row.what  # 27p
    assert set(done.row.changes) == {str(wren.pk), str(ash.pk)}


def test_a_split_a_purse_refuses_changes_nothing(cc, wren, ash, gm):
    stash.stash_add_coins(campaign_id=cc.pk, amount=10, by=gm)
    outsider = make_character(gm, make_table("chaos-conquest", gm, name="Elsewhere"), system="chaos-conquest")
    before = (_coins(wren), _stash_coins(cc))
    with pytest.raises(stash.NotAtTable):
        stash.coins_split(campaign_id=cc.pk, character_ids=[wren.pk, outsider.pk], amount=10, by=gm)
    with pytest.raises(stash.Taken):
        stash.coins_split(campaign_id=cc.pk, character_ids=[wren.pk], amount=11, by=gm)
    assert (_coins(wren), _stash_coins(cc)) == before


# --- both histories, and reverting from either ---------------------------------------------------------------------


def _revert_from_sheet(character, by, reason="Wrong item"):
    change = Change.objects.filter(character=character).first()
    return table.revert_change(character_id=character.pk, change_id=change.pk, by=by, reason=reason)


def test_reverting_a_take_from_the_sheets_history_puts_the_item_back_in_the_stash(cc, wren, gm, player):
    row = _loot(cc, gm)
    stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, by=player)
    _revert_from_sheet(wren, player)
    assert not wren.items.filter(name="Silver chalice").exists()
    back = _row(cc, "Silver chalice")
    assert back.pk == row.pk and back.quantity == 1
    undo = StashEntry.objects.filter(campaign=cc).first()
    assert undo.reverts.what == "Wren took Silver chalice from the stash" and undo.reason == "Wrong item"
    with pytest.raises(RulesError, match="already reverted"):
        stash.stash_entry_revert(campaign_id=cc.pk, entry_id=undo.reverts.pk, by=gm, reason="again")


def test_the_gm_reverts_a_put_from_the_stash_history_and_the_item_is_back_on_the_sheet(cc, wren, gm, player):
    held = wren.items.order_by("pk").first()
    stash.stash_put(campaign_id=cc.pk, character_id=wren.pk, item_id=held.pk, by=player)
    entry = StashEntry.objects.filter(campaign=cc).first()
    stash.stash_entry_revert(campaign_id=cc.pk, entry_id=entry.pk, by=gm, reason="Dropped by mistake")
    assert wren.items.filter(name=held.name, quantity=held.quantity).exists()
    assert not _row(cc, held.name)
    assert Change.objects.filter(character=wren).first().what.startswith("Reverted “Put ")


def test_a_revert_is_refused_when_the_item_moved_on_since(cc, wren, ash, gm, player, other_player):
    row = _loot(cc, gm)
    stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, by=player)
    on_sheet = wren.items.get(name="Silver chalice")
    stash.stash_put(campaign_id=cc.pk, character_id=wren.pk, item_id=on_sheet.pk, by=player)
    again = _row(cc, "Silver chalice")
    stash.stash_take(campaign_id=cc.pk, character_id=ash.pk, stash_item_id=again.pk, by=other_player)
    first = StashEntry.objects.filter(campaign=cc).order_by("pk")[1]
    with pytest.raises(RulesError, match="changed again|moved"):
        stash.stash_entry_revert(campaign_id=cc.pk, entry_id=first.pk, by=gm, reason="undo")
    assert ash.items.filter(name="Silver chalice").exists()


def test_the_gm_reverts_loot_and_a_split(cc, wren, ash, gm):
    _loot(cc, gm)
    stash.stash_add_coins(campaign_id=cc.pk, amount=20, by=gm)
    before = (_coins(wren), _coins(ash))
    split = stash.coins_split(campaign_id=cc.pk, character_ids=[wren.pk, ash.pk], amount=20, by=gm).row
    stash.stash_entry_revert(campaign_id=cc.pk, entry_id=split.pk, by=gm, reason="Not yet")
    assert (_coins(wren), _coins(ash), _stash_coins(cc)) == (*before, 20)
    loot = StashEntry.objects.get(campaign=cc, what="Put Silver chalice in the stash")
    stash.stash_entry_revert(campaign_id=cc.pk, entry_id=loot.pk, by=gm, reason="Not found yet")
    assert not _row(cc, "Silver chalice")


# --- who may do what ------------------------------------------------------------------------------------------------


def test_a_stranger_learns_nothing_and_a_player_moves_only_their_own_at_this_table(
    cc, wren, ash, gm, player, stranger, as_user
):
    row = _loot(cc, gm)
    for url in (reverse("campaigns:stash", args=[cc.pk]), reverse("campaigns:stash_take", args=[cc.pk, row.pk])):
        assert as_user(stranger).post(url, {"character": wren.pk}).status_code in (404, 405)
        assert as_user(stranger).get(reverse("campaigns:stash", args=[cc.pk])).status_code == 404
    with pytest.raises(NotHere):
        commands.take_from_stash(player, cc.pk, character_id=ash.pk, stash_item_id=row.pk)
    elsewhere = make_table("chaos-conquest", gm, player, name="Elsewhere")
    far = make_character(player, elsewhere, system="chaos-conquest", name="Far")
    with pytest.raises(NotHere):
        commands.take_from_stash(player, cc.pk, character_id=far.pk, stash_item_id=row.pk)
    with pytest.raises(commands.NotTheGm):
        commands.add_loot(player, cc.pk, name="Gem", kind="treasure", slots=0, quantity=1)
    with pytest.raises(commands.NotTheGm):
        commands.split_coins(player, cc.pk, character_ids=[wren.pk], amount=1)
    assert _row(cc, "Silver chalice").quantity == 1


def test_the_stash_region_offers_a_player_only_their_characters(cc, wren, ash, gm, player, as_user):
    _loot(cc, gm)
    page = as_user(player).get(reverse("campaigns:detail", args=[cc.pk]))
    region = page.content.decode().split('id="stash"', 1)[1]
    assert "Silver chalice" in region and f'value="{wren.pk}"' in region and f'value="{ash.pk}"' not in region
    assert "Hand out loot" not in region
    assert "Hand out loot" in as_user(gm).get(reverse("campaigns:detail", args=[cc.pk])).content.decode()
    own_page = as_user(player).get(reverse("campaigns:stash", args=[cc.pk]))  # the stash on a page of its own
    assert (
        own_page.status_code == 200 and "Silver chalice" in text_of(own_page) and "<html" in own_page.content.decode()
    )


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_player_takes_from_the_page_the_form_renders(cc, wren, gm, player, as_user, htmx):
    row = _loot(cc, gm)
    client = as_user(player)
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    url = reverse("campaigns:stash_take", args=[cc.pk, row.pk])
    response = client.post(url, form_fields(page, url), **(HTMX if htmx else {}))
    assert response.status_code == (200 if htmx else 302)
    assert wren.items.filter(name="Silver chalice").exists()
    second = client.post(url, form_fields(page, url), **(HTMX if htmx else {}))
    if htmx:
        assert second.status_code == 422 and "no longer in the stash" in text_of(second)
    else:
        assert second.status_code == 302


def test_the_gm_hands_out_loot_and_splits_from_the_page(cc, wren, ash, gm, as_user):
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    url = reverse("campaigns:stash_add", args=[cc.pk])
    response = client.post(url, form_fields(page, url, name="Ruby", coins="40"), **HTMX)
    assert response.status_code == 200 and "Ruby" in text_of(response)
    assert _stash_coins(cc) == 40
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    url = reverse("campaigns:stash_split", args=[cc.pk])
    response = client.post(url, form_fields(page, url), **HTMX)
    assert response.status_code == 200 and _stash_coins(cc) == 0
    bad = client.post(url, form_fields(page, url, amount="lots"), **HTMX)
    assert bad.status_code == 422 and "Coins to split: give a whole number" in text_of(bad)


def test_the_stash_region_reads_in_a_fixed_number_of_queries(
    cc, wren, ash, gm, player, as_user, django_assert_max_num_queries
):
    for n in range(6):
        _loot(cc, gm, name=f"Gem {n}")
    client = as_user(gm)
    with django_assert_max_num_queries(10):
        response = client.get(reverse("campaigns:stash", args=[cc.pk]), **HTMX)
    assert response.status_code == 200 and "Gem 5" in text_of(response)


def test_a_gm_removal_is_logged_and_a_later_take_reads_a_sentence(cc, wren, gm, player):
    row = _loot(cc, gm)
    stash.stash_remove_item(campaign_id=cc.pk, stash_item_id=row.pk, by=gm)
    with pytest.raises(stash.Taken):
        stash.stash_take(campaign_id=cc.pk, character_id=wren.pk, stash_item_id=row.pk, by=player)
    assert StashEntry.objects.filter(campaign=cc).first().what == "Removed Silver chalice from the stash"
    assert not Item.objects.filter(character=wren, name="Silver chalice").exists()


# --- kept offline, replayed once ------------------------------------------------------------------------------------


def _sync(client, character, **fields):
    import json
    import uuid

    body = {"key": fields.pop("key", str(uuid.uuid4())), "version": character.version, **fields}
    url = reverse("characters:offline_sync", args=[character.pk])
    return client.post(url, json.dumps(body), content_type="application/json")


def test_a_take_kept_offline_applies_once_and_a_late_one_is_a_conflict(
    cc, wren, ash, gm, player, other_player, as_user
):
    row = _loot(cc, gm)
    first = _sync(as_user(player), wren, key="stash-take-0001", kind="stash-take", item=row.pk)
    assert first.status_code == 200 and first.json()["message"] == "Took Silver chalice from the stash"
    again = _sync(as_user(player), wren, key="stash-take-0001", kind="stash-take", item=row.pk)
    assert again.json()["replayed"] is True and wren.items.filter(name="Silver chalice").count() == 1
    late = _sync(as_user(other_player), ash, kind="stash-take", item=row.pk)
    assert late.status_code == 409 and "no longer in the stash" in late.json()["message"]
    assert not ash.items.filter(name="Silver chalice").exists()


def test_a_put_kept_offline_lands_in_the_stash_and_bad_ones_are_refused(cc, wren, player, as_user):
    held = wren.items.order_by("pk").first()
    answer = _sync(as_user(player), wren, kind="stash-put", item=held.pk, quantity=1)
    assert answer.status_code == 200 and _row(cc, held.name).quantity == 1
    assert _sync(as_user(player), wren, kind="stash-put", item="one").status_code == 400
    assert _sync(as_user(player), wren, kind="stash-put", item=held.pk, quantity=0).status_code == 400


@pytest.mark.django_db(transaction=True)  # each write commits its own journal entry, as a request's does
def test_a_late_take_kept_offline_says_what_happened_at_the_table_meanwhile(
    cc, wren, ash, player, other_player, gm, as_user
):
    """The page sends the journal cursor it was drawn at: the conflict's sentence then says the stash moved."""
    from live import journal

    row = _loot(cc, gm)
    drawn_at = journal.head(cc.pk)
    stash.stash_take(campaign_id=cc.pk, character_id=ash.pk, stash_item_id=row.pk, by=other_player)
    late = _sync(as_user(player), wren, kind="stash-take", item=row.pk, cursor=drawn_at)
    assert late.status_code == 409
    taken, told = late.json()["message"].split(" Meanwhile at the table: ")
    assert "no longer in the stash" in taken and told == "the party's stash changed."
    assert not wren.items.filter(name="Silver chalice").exists()


def test_the_stash_page_is_kept_by_the_worker_and_its_moves_marked_for_the_offline_queue(cc, wren, gm, player, as_user):
    """static/js/offline.js keeps a Take or Put made offline as a change of the sheet the chosen option names (its
    version, its offline endpoint) and sends the journal cursor the region was drawn at; the worker keeps the page."""
    from live import journal
    from tests.html_check import html_problems

    row = _loot(cc, gm)
    client = as_user(player)
    page = client.get(reverse("campaigns:stash", args=[cc.pk]))
    html = page.content.decode()
    assert not html_problems(html)
    assert f'data-stash="{cc.pk}"' in html and f'data-journal-cursor="{journal.head(cc.pk)}"' in html
    assert f'data-offline="stash-take" data-item="{row.pk}" data-name="Silver chalice"' in html
    assert 'data-offline="stash-put"' in html
    sync_url = reverse("characters:offline_sync", args=[wren.pk])
    assert f'<option value="{wren.pk}" data-version="{wren.version}" data-offline-url="{sync_url}">' in html
    held = wren.items.order_by("pk").first()
    assert f'<option value="{wren.pk}:{held.pk}" data-version="{wren.version}"' in html
    worker = client.get("/sw.js").content.decode()
    assert r"campaigns\/\d+\/stash\/" in worker and "KEPT_PAGE.test(url.pathname)" in worker


def test_a_pushed_stash_offers_each_player_their_own_characters_and_the_gm_every_one(
    cc, wren, ash, gm, player, other_player
):
    from campaigns import push

    since = Since(cc.pk)
    _loot(cc, gm)
    recorded = since.events()
    assert ev.StashChanged() in recorded
    pages = [(gm.pk, "table"), (player.pk, "table"), (other_player.pk, "table")]
    out = push.render_push(cc.pk, recorded, pages)
    for (user, _), mine, theirs in ((pages[1], wren, ash), (pages[2], ash, wren)):
        html = out[(user, "table")]
        assert 'id="stash"' in html and "Silver chalice" in html
        assert f'<option value="{mine.pk}">' in html and f'<option value="{theirs.pk}">' not in html
        assert "Hand out loot" not in html
    gm_html = out[(gm.pk, "table")]
    assert f'<option value="{wren.pk}">' in gm_html and f'<option value="{ash.pk}">' in gm_html
    assert "Hand out loot" in gm_html


@pytest.mark.parametrize("odd", ["²", "٣", "-1", "1e3", " ", "99999999999999"])
def test_odd_numbers_in_a_stash_form_are_a_sentence_not_an_error(cc, wren, gm, player, as_user, odd):
    row = _loot(cc, gm)
    for client, url, fields in (
        (as_user(gm), reverse("campaigns:stash_add", args=[cc.pk]), {"name": "Gem", "quantity": odd}),
        (
            as_user(player),
            reverse("campaigns:stash_take", args=[cc.pk, row.pk]),
            {"character": wren.pk, "quantity": odd},
        ),
        (as_user(player), reverse("campaigns:stash_put", args=[cc.pk]), {"item": f"{wren.pk}:{odd}"}),
        (as_user(gm), reverse("campaigns:stash_split", args=[cc.pk]), {"characters": [wren.pk], "amount": odd}),
    ):
        assert client.post(url, fields, **HTMX).status_code in (200, 422), (url, odd)
    assert _row(cc, "Silver chalice").quantity == 1
