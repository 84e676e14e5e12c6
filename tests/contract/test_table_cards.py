"""Issue 39: the table page's party cards are kept (campaigns/card_cache.py); a kept card equals a fresh drawing.

Cards are kept by the character's row, the kind of viewer (GM, the card's owner, another player), the table's
stamps and a digest of what the card holds (tracks, conditions, slots, hirelings, pending offers). This primes
every kind of viewer's cards, makes each write, and compares the kept card with one drawn afresh, and the
whole page with one drawn by a process that keeps nothing.
"""

from __future__ import annotations

import random
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.card_cache import draw_card, in_place, kept_cards
from campaigns.models import Membership
from campaigns.session import requests as asking
from campaigns.session.encounters import encounter_start
from campaigns.table import party_cards
from characters import services
from characters.models import Character, OfferedChange
from rules import SYSTEMS
from tests.conftest import client_for, make_character, make_user
from tests.contract.test_region_cache import _change_a_setting, _tokenless

pytestmark = pytest.mark.django_db


@contextmanager
def _nothing_kept():
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}):
        yield


def _check(campaign, viewers, *, prime: bool = False) -> None:
    campaign.refresh_from_db()
    for kind, user in viewers.items():
        seat = Membership.objects.get(campaign=campaign, user=user)
        cards = party_cards(campaign)
        for kept in kept_cards(campaign, seat, user, cards):
            fresh = draw_card(campaign, seat, user, kept)
            if not prime:
                assert kept.drawn == fresh, f"{kept.character.name}'s card as the {kind} sees it is stale"
        url = reverse("campaigns:detail", args=[campaign.pk])
        page = _tokenless(client_for(user).get(url).content.decode())
        if not prime:
            with _nothing_kept():
                assert page == _tokenless(client_for(user).get(url).content.decode()), f"the {kind}'s page is stale"


def _offer_on(target: Character, attacker: Character):
    for seed in range(40):
        services.character_roll(
            character_id=attacker.pk,
            procedure="attack",
            params={"target": target.pk},
            by=attacker.owner,
            rng=random.Random(seed),
        )
        if OfferedChange.objects.filter(character=target, status="pending").exists():
            return
    raise AssertionError("no attack landed")


def test_a_kept_card_equals_a_fresh_one_after_each_change(campaign, gm, player, other_player):
    hero = make_character(player, campaign, name="Wren")
    rival = make_character(other_player, campaign, name="Ash", seed=9)
    viewers = {"gm": gm, "owner": player, "other player": other_player}
    procedure = next(iter(asking.requestable(SYSTEMS[campaign.system])))
    writes = [
        ("HP change", lambda: services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)),
        ("settings", lambda: _change_a_setting(hero, gm)),
        ("a fight starts", lambda: encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)),
        (
            "a roll request",
            lambda: asking.request_create(
                campaign_id=campaign.pk,
                procedure=procedure,
                fixed={},
                character_ids=[hero.pk, rival.pk],
                minutes=5,
                by=gm,
            ),
        ),
        ("an offer", lambda: _offer_on(hero, rival)),
        ("owner renamed", lambda: type(player).objects.filter(pk=player.pk).update(username="wren-player")),
    ]
    for name, write in writes:
        _check(campaign, viewers, prime=True)
        assert write() is not None or name in ("an offer", "owner renamed"), name
        _check(campaign, viewers)


def test_the_kinds_of_viewer_see_their_own_cards(campaign, gm, player, other_player):
    hero = make_character(player, campaign, name="Wren")
    drawn = {}
    for kind, user in {"gm": gm, "owner": player, "other player": other_player}.items():
        seat = Membership.objects.get(campaign=campaign, user=user)
        [card] = kept_cards(campaign, seat, user, party_cards(campaign))
        drawn[kind] = in_place(card.drawn, "token")
    adjust = reverse("campaigns:card_adjust", args=[campaign.pk, hero.pk])
    assert adjust in drawn["gm"] and adjust in drawn["owner"] and adjust not in drawn["other player"]
    assert 'value="token"' in drawn["gm"] and "hx-swap-oob" not in drawn["gm"]


def test_the_table_pages_queries_do_not_grow_with_the_party(campaign, gm, player):
    url = reverse("campaigns:detail", args=[campaign.pk])
    client = client_for(gm)
    make_character(player, campaign, name="First")

    def queries() -> int:
        client.get(url)  # the second drawing reads what the first kept
        with CaptureQueriesContext(connection) as seen:
            assert client.get(url).status_code == 200
        return len(seen)

    one = queries()
    for n in range(5):
        owner = make_user(f"joiner{n}")
        Membership.objects.create(campaign=campaign, user=owner)
        make_character(owner, campaign, name=f"PC {n}", seed=n)
    assert queries() == one


def test_a_refused_change_on_a_card_is_not_kept(campaign, gm, player, as_user):
    """The card answering a refused +/- carries its error; the next page's card does not."""
    hero = make_character(player, campaign, name="Wren")
    client = as_user(player)
    adjust = reverse("campaigns:card_adjust", args=[campaign.pk, hero.pk])
    answer = client.post(adjust, {"key": "no-such-track", "delta": "1"}, HTTP_HX_REQUEST="true")
    page = client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert answer.status_code == 422 and 'role="alert"' in answer.content.decode()
    assert '<p class="error" role="alert">' not in page
