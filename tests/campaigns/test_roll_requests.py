"""Roll requests (issue 16): the GM asks characters for a roll, each player answers from the sheet in one tap."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import RollRequest, RollRequestAnswer
from characters.models import Roll
from characters.services import character_odds
from tests.conftest import make_character
from tests.html_check import html_problems
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def ash(other_player, cc):
    return make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=11)


def _ask(client, campaign, **changes):
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    action = reverse("campaigns:request_new", args=[campaign.pk])
    return client.post(action, form_fields(page, action, **changes), **HTMX)


def _answer(client, character, request, extra=None, **changes):
    page = client.get(reverse("campaigns:sheet_requests", args=[character.campaign_id, character.pk]))
    action = reverse("campaigns:request_answer", args=[character.campaign_id, request.pk, character.pk])
    return client.post(action, form_fields(page, action, extra, **changes), **HTMX)


def test_everyone_saves_on_dex_and_the_table_sees_each_outcome_then_the_party_result(
    cc, wren, ash, gm, player, other_player, as_user
):
    """Seed 002, Party Saves: the best result counts for the group; the leader takes a stress per failure."""
    response = _ask(as_user(gm), cc, **{"fix-attribute": "DEX"})
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert request.inputs == {"attribute": "DEX"} and request.shown == "Attribute DEX"
    assert sorted(request.answers.values_list("character__name", flat=True)) == ["Ash", "Wren"]
    table = as_user(gm).get(reverse("campaigns:requests", args=[cc.pk]))
    assert text_of(table).count("waiting") == 2
    sheet = as_user(player).get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    assert "Roll Save" in text_of(sheet) and "Attribute DEX" in text_of(sheet)
    assert "attribute" not in form_fields(
        sheet, reverse("campaigns:request_answer", args=[cc.pk, request.pk, wren.pk])
    )  # the GM's input is not the player's to set
    assert _answer(as_user(player), wren, request).status_code == 200
    assert _answer(as_user(other_player), ash, request).status_code == 200
    rolls = Roll.objects.filter(procedure="save").order_by("character__name")
    assert [r.inputs["attribute"] for r in rolls] == ["DEX", "DEX"]
    assert {r.roller for r in rolls} == {player, other_player}
    request.refresh_from_db()
    outcomes = list(request.answers.values_list("outcome", flat=True))
    assert request.group_outcome == ("pass" if "pass" in outcomes else "fail")
    assert request.group_summary.startswith("The party passes" if "pass" in outcomes else "The party fails")
    table = as_user(gm).get(reverse("campaigns:requests", args=[cc.pk]))
    assert "waiting" not in text_of(table) and "Group:" in text_of(table)


def test_a_system_without_a_group_result_shows_none(campaign, hero, rival, gm, player, other_player, as_user):
    response = _ask(as_user(gm), campaign, **{"fix-ability": "BOD", "fix-dn": "6", "characters": [hero.pk]})
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert request.inputs == {"ability": "BOD", "dn": 6}
    assert _answer(as_user(player), hero, request).status_code == 200
    roll = Roll.objects.get(character=hero, procedure="test")
    assert roll.inputs["dn"] == 6 and roll.inputs["ability"] == "BOD"
    request.refresh_from_db()
    assert request.group_summary == "" and request.answers.get().outcome == roll.outcome


def _nothing_changed(before_rolls: int) -> None:
    assert Roll.objects.filter(procedure="save").count() == before_rolls


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"characters": ["999999"]}, "Only characters at this table can be asked for a roll."),
        ({"characters": None}, "Pick at least one character to ask."),
        ({"minutes": "0"}, "greater than or equal to 1"),
        ({"procedure": "party_save"}, "has no roll a player makes"),
        ({"fix-talent": "Nonsense"}, "Select a valid choice"),
    ],
)
def test_bad_requests_are_refused_readably(changes, message, cc, wren, gm, as_user):
    response = _ask(as_user(gm), cc, **changes)
    assert response.status_code == 422
    assert message in text_of(response)
    assert not RollRequest.objects.exists()


def test_a_character_of_another_table_cannot_be_asked(cc, wren, gm, player, as_user):
    elsewhere = make_character(player, None, system="chaos-conquest", name="Loner")
    response = _ask(as_user(gm), cc, characters=[wren.pk, elsewhere.pk])
    assert response.status_code == 422 and "Only characters at this table" in text_of(response)
    assert not RollRequest.objects.exists()


def test_bad_answers_are_refused_readably_and_change_nothing(cc, wren, ash, gm, player, other_player, as_user):
    _ask(as_user(gm), cc, **{"fix-attribute": "DEX"})
    request = RollRequest.objects.get()
    url = reverse("campaigns:request_answer", args=[cc.pk, request.pk, ash.pk])
    # Someone else's character: the other player may see Ash's sheet but not answer for Ash.
    response = as_user(player).post(url, {}, **HTMX)
    assert response.status_code == 422 and "someone else's character" in text_of(response)
    # Changing the GM's input: the form has no field for it, so it is posted as a tampered form would.
    response = _answer(as_user(player), wren, request, {"attribute": "STR"})
    assert response.status_code == 422 and "The GM set Attribute" in text_of(response)
    _nothing_changed(0)
    # The first answer counts; a second is refused.
    assert _answer(as_user(player), wren, request).status_code == 200
    again = as_user(player).post(reverse("campaigns:request_answer", args=[cc.pk, request.pk, wren.pk]), {}, **HTMX)
    assert again.status_code == 422 and "answered that request already" in text_of(again)
    _nothing_changed(1)


def test_cancelled_and_expired_requests_cannot_be_answered(cc, wren, ash, gm, player, as_user):
    _ask(as_user(gm), cc)
    request = RollRequest.objects.get()
    cancel = reverse("campaigns:request_cancel", args=[cc.pk, request.pk])
    assert as_user(gm).post(cancel, **HTMX).status_code == 200
    url = reverse("campaigns:request_answer", args=[cc.pk, request.pk, wren.pk])
    response = as_user(player).post(url, {}, **HTMX)
    assert response.status_code == 422 and "The GM cancelled that request." in text_of(response)
    again = as_user(gm).post(cancel, **HTMX)
    assert again.status_code == 422 and "cancelled already" in text_of(again)
    _ask(as_user(gm), cc)
    fresh = RollRequest.objects.filter(status="open").get()
    RollRequest.objects.filter(pk=fresh.pk).update(expires_at=fresh.created_at)
    url = reverse("campaigns:request_answer", args=[cc.pk, fresh.pk, wren.pk])
    response = as_user(player).post(url, {}, **HTMX)
    assert response.status_code == 422 and "expired" in text_of(response)
    assert not Roll.objects.filter(procedure="save").exists()
    assert "Expired" in text_of(as_user(gm).get(reverse("campaigns:requests", args=[cc.pk])))


@pytest.mark.parametrize(
    ("who", "read", "write"),
    [("gm", 200, 200), ("player", 200, 404), ("other_player", 200, 404), ("stranger", 404, 404)],
)
def test_request_urls_permissions(who, read, write, cc, wren, gm, as_user, request):
    client = as_user(request.getfixturevalue(who))
    _ask(as_user(gm), cc)
    rq = RollRequest.objects.get()
    assert client.get(reverse("campaigns:requests", args=[cc.pk])).status_code == read
    assert client.get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk])).status_code == read
    assert client.get(reverse("campaigns:request_fields", args=[cc.pk]), {"procedure": "save"}).status_code == write
    before = RollRequest.objects.count()
    response = client.post(reverse("campaigns:request_new", args=[cc.pk]), {"procedure": "save"}, **HTMX)
    assert response.status_code in ((write, 422) if write == 200 else (write,))
    assert RollRequest.objects.count() == before
    response = client.post(reverse("campaigns:request_cancel", args=[cc.pk, rq.pk]), **HTMX)
    assert response.status_code == write
    rq.refresh_from_db()
    assert (rq.status == "cancelled") == (who == "gm")
    answer = client.post(reverse("campaigns:request_answer", args=[cc.pk, rq.pk, wren.pk]), {}, **HTMX)
    # The owner answers (the GM cancelled it only in the GM's run); anyone else is refused or does not see it.
    assert answer.status_code == {"gm": 422, "player": 200, "other_player": 422, "stranger": 404}[who]
    assert RollRequestAnswer.objects.filter(answered_at__isnull=False).exists() == (who == "player")


def test_the_owner_answers_an_open_request(cc, wren, gm, player, as_user):
    _ask(as_user(gm), cc)
    rq = RollRequest.objects.get()
    response = _answer(as_user(player), wren, rq)
    assert response.status_code == 200
    assert Roll.objects.get(procedure="save").roller == player


def test_a_plain_post_answers_and_goes_back_to_the_sheet(cc, wren, gm, player, as_user):
    _ask(as_user(gm), cc)
    rq = RollRequest.objects.get()
    client, url = as_user(player), reverse("campaigns:request_answer", args=[cc.pk, rq.pk, wren.pk])
    page = client.get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    response = client.post(url, form_fields(page, url))  # without htmx
    assert response.status_code == 302 and response.url == wren.get_absolute_url()
    assert RollRequestAnswer.objects.get().outcome


def test_the_sheet_loads_its_request_region(cc, wren, player, as_user):
    page = as_user(player).get(wren.get_absolute_url())
    assert reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]) in page.content.decode()


def test_the_player_sees_their_own_odds_for_the_roll_asked_and_a_peer_sees_none(
    cc, wren, ash, gm, player, other_player, as_user, django_assert_max_num_queries
):
    """Issue 26: the prompt carries the player's exact odds for the roll asked, with the GM's inputs (here a DEX
    save: Seed 002, Saves); whoever may answer for the character sees them, a player beside them sees neither."""
    assert _ask(as_user(gm), cc, **{"fix-attribute": "DEX"}).status_code == 200
    odds = character_odds(wren, "save", {"attribute": "DEX"})
    url = reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk])
    for who in (player, gm):
        client = as_user(who)
        with django_assert_max_num_queries(14):
            page = client.get(url)
        html = page.content.decode()
        assert html_problems(html) == []
        exact = f"{odds.success.numerator}/{odds.success.denominator}"
        assert "data-request-odds" in html and f'data-odds="{exact}"' in html
    peer = as_user(other_player).get(url)
    assert peer.status_code == 200 and "data-request-odds" not in peer.content.decode()
    assert "Waiting for Wren" in text_of(peer)
