"""Requests don't pile up (issue 36 item 8): the sheet shows one request card at a time ("1 of 3") with the newest
first, answering one brings the next, answered ones fold away; on the GM's list, cancelled and expired requests
leave for a folded "Ended" list; the Ask button names the roll it asks for."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns import session
from campaigns.models import RollRequest
from tests.html_check import html_problems
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


def _ask(gm, campaign, character, procedure: str, fixed: dict | None = None) -> RollRequest:
    session.request_create(
        campaign_id=campaign.pk,
        procedure=procedure,
        fixed=fixed or {},
        character_ids=[character.pk],
        minutes=10,
        by=gm,
        blind=False,
    )
    return RollRequest.objects.order_by("-pk").first()


def _region(client, character, show: int | None = None):
    url = reverse("campaigns:sheet_requests", args=[character.campaign_id, character.pk])
    return client.get(url + (f"?show={show}" if show else ""))


def _cards(response) -> int:
    return response.content.decode().count('class="roll-request"')


def test_three_requests_show_one_card_newest_first_and_the_pager_reaches_each(cc, wren, gm, player, as_user):
    save = _ask(gm, cc, wren, "save", {"attribute": "DEX"})
    _ask(gm, cc, wren, "save", {"attribute": "STR"})
    newest = _ask(gm, cc, wren, "save", {"attribute": "WIL"})
    client = as_user(player)
    first = _region(client, wren)
    assert first.status_code == 200 and not html_problems(first.content.decode())
    assert _cards(first) == 1
    assert "1 of 3" in text_of(first) and "Attribute WIL" in text_of(first)
    assert 'data-requests="3"' in first.content.decode()  # the tab's badge still counts every one waiting
    assert "Older" in text_of(first) and "Newer" not in text_of(first)
    oldest = _region(client, wren, show=save.pk)
    assert "3 of 3" in text_of(oldest) and "Attribute DEX" in text_of(oldest) and "Older" not in text_of(oldest)
    assert _region(client, wren, show=10**30).status_code == 200  # a stale or absurd pick shows the newest
    assert "Attribute WIL" in text_of(_region(client, wren, show=10**30))
    # Answering the one shown brings the next; the answered one folds away under it.
    action = reverse("campaigns:request_answer", args=[cc.pk, newest.pk, wren.pk])
    answered = client.post(action, form_fields(first, action), **HTMX)
    assert answered.status_code == 200, text_of(answered)
    assert "1 of 2" in text_of(answered) and "Attribute STR" in text_of(answered)
    page = answered.content.decode()
    assert '<details class="answered-fold">' in page and "Answered (1)" in text_of(answered)


def test_with_nothing_waiting_the_latest_answers_stay_in_view(cc, wren, gm, player, as_user):
    asked = _ask(gm, cc, wren, "save", {"attribute": "DEX"})
    client = as_user(player)
    action = reverse("campaigns:request_answer", args=[cc.pk, asked.pk, wren.pk])
    answered = client.post(action, form_fields(_region(client, wren), action), **HTMX)
    page = answered.content.decode()
    assert '<details class="answered-fold" open>' in page and "of 1" not in text_of(answered)
    assert "The GM's requests" in text_of(answered)


def test_cancelled_and_expired_requests_leave_the_gms_list_for_the_ended_fold(cc, wren, gm, as_user):
    expired = _ask(gm, cc, wren, "save", {"attribute": "DEX"})
    RollRequest.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    cancelled = _ask(gm, cc, wren, "save", {"attribute": "STR"})
    session.request_cancel(request_id=cancelled.pk, campaign_id=cc.pk)
    open_one = _ask(gm, cc, wren, "save", {"attribute": "WIL"})
    response = as_user(gm).get(reverse("campaigns:requests", args=[cc.pk]))
    page = response.content.decode()
    assert not html_problems(page)
    listed, ended = page.split('id="requests-ended"')
    assert f'data-request="{open_one.pk}"' in listed
    assert f'data-request="{expired.pk}"' in ended and f'data-request="{cancelled.pk}"' in ended
    assert "Ended (2)" in text_of(response)


def test_only_open_requests_mark_who_is_asked_for_the_players_prompt(cc, wren, gm, player, as_user):
    expired = _ask(gm, cc, wren, "save", {"attribute": "DEX"})
    RollRequest.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    table = as_user(player).get(reverse("campaigns:detail", args=[cc.pk]))
    page = table.content.decode()
    assert f'data-own-characters="{wren.pk} "' in page and "data-asks=" not in page
    _ask(gm, cc, wren, "save", {"attribute": "STR"})
    page = as_user(player).get(reverse("campaigns:detail", args=[cc.pk])).content.decode()
    sheet = reverse("characters:sheet", args=[wren.pk])
    assert f'data-asks="{wren.pk}" data-sheet="{sheet}"' in page
    assert "data-own-characters" not in as_user(gm).get(reverse("campaigns:detail", args=[cc.pk])).content.decode()


def test_the_ask_button_names_the_roll_it_asks_for(cc, wren, gm, as_user):
    page = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))
    assert "Ask for Save" in text_of(page)
    fields = as_user(gm).get(reverse("campaigns:request_fields", args=[cc.pk]), {"procedure": "rest"})
    assert "Ask for Rest" in text_of(fields) and "Ask for Save" not in text_of(fields)


def test_a_blind_request_that_ended_folds_without_its_outcome_for_players_and_with_it_for_the_gm(
    cc, wren, gm, player, as_user
):
    """Blind crossing the Ended fold: the player's list says "rolled blind", the GM's shows the outcome."""
    import random

    session.request_create(
        campaign_id=cc.pk,
        procedure="save",
        fixed={"attribute": "DEX"},
        character_ids=[wren.pk],
        minutes=10,
        by=gm,
        blind=True,
    )
    asked = RollRequest.objects.get()
    session.request_answer(request_id=asked.pk, character_id=wren.pk, params={}, by=player, rng=random.Random(3))
    RollRequest.objects.filter(pk=asked.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    outcome = asked.answers.get().outcome
    players = as_user(player).get(reverse("campaigns:requests", args=[cc.pk])).content.decode()
    ended = players.split('id="requests-ended"')[1]
    assert "rolled blind" in ended and f'data-outcome="{outcome}"' not in players
    gms = as_user(gm).get(reverse("campaigns:requests", args=[cc.pk])).content.decode()
    assert f'data-outcome="{outcome}"' in gms.split('id="requests-ended"')[1]
    sheet = as_user(player).get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    assert "rolled blind" in text_of(sheet) and outcome not in text_of(sheet).split("Answered")[1].lower()
