"""The table page over HTTP: every campaign URL's permissions, the clock, the GM's roll, the roll log."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Roll
from rules import SYSTEMS
from tests.conftest import make_character
from tests.pages import form_fields, text_of

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}

READS = [
    ("campaigns:detail", {}),
    ("campaigns:region", {"name": "party"}),
    ("campaigns:region", {"name": "log"}),
    ("campaigns:region", {"name": "members"}),
    ("campaigns:region", {"name": "clock"}),
    ("campaigns:older_rolls", {}),
]
GM_WRITES = [
    ("campaigns:gm_roll", {"count": 1, "sides": "20", "label": "luck"}),
    ("campaigns:clock", {"action": "advance", "minutes": "10"}),
]


def _url(name, campaign, kwargs):
    return reverse(name, kwargs={"pk": campaign.pk, **kwargs})


@pytest.mark.parametrize(("name", "kwargs"), READS)
@pytest.mark.parametrize(("who", "expected"), [("anonymous", 302), ("stranger", 404), ("player", 200), ("gm", 200)])
def test_table_reads_are_for_members_only(name, kwargs, who, expected, campaign, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    query = {"before": 10**9} if name == "campaigns:older_rolls" else {}
    response = as_user(user).get(_url(name, campaign, kwargs), query)
    assert response.status_code == expected


@pytest.mark.parametrize(("name", "data"), GM_WRITES)
@pytest.mark.parametrize(("who", "expected"), [("anonymous", 302), ("stranger", 404), ("player", 404), ("gm", 200)])
def test_gm_tools_are_404_for_everyone_but_the_gm(name, data, who, expected, campaign, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = as_user(user).post(_url(name, campaign, {}), data, **HX)
    assert response.status_code == expected
    campaign.refresh_from_db()
    assert (campaign.game_minutes == 10) == (who == "gm" and name == "campaigns:clock")
    assert Roll.objects.filter(campaign=campaign).exists() == (who == "gm" and name == "campaigns:gm_roll")


@pytest.mark.parametrize(("who", "expected"), [("stranger", 404), ("other_player", 404), ("player", 200), ("gm", 200)])
def test_card_buttons_change_only_what_you_may(who, expected, hero, as_user, request):
    client = as_user(request.getfixturevalue(who))
    url = reverse("campaigns:card_adjust", args=[hero.campaign_id, hero.pk])
    response = client.post(url, {"key": "hp", "delta": "-1"}, **HX)
    assert response.status_code == expected
    hero_after = type(hero).objects.get(pk=hero.pk)
    assert (hero_after.state["hp"] == hero.state["hp"] - 1) == (expected == 200)


def test_unknown_regions_and_cards_are_404(campaign, gm, as_user):
    client = as_user(gm)
    assert client.get(_url("campaigns:region", campaign, {"name": "secrets"})).status_code == 404
    assert client.get(reverse("campaigns:card", args=[campaign.pk, 999])).status_code == 404


def test_the_table_shows_a_card_per_character_with_its_vitals(hero, rival, gm, as_user):
    page = as_user(gm).get(hero.campaign.get_absolute_url()).content.decode()
    for character in (hero, rival):
        assert f'id="card-{character.pk}"' in page
        assert f'data-version="{character.version}"' in page
    assert 'sse-connect="/campaigns/' in page and "?page=table" in page and 'sse-swap="push"' in page


def test_the_clock_shows_the_encounter_trackers_rounds_and_counts_game_time(campaign, gm, as_user):
    """One thing runs rounds: the encounter tracker. The clock shows its round and adds the fight's time."""
    client = as_user(gm)
    fight = reverse("campaigns:encounter_action", args=[campaign.pk, "start"])
    page = client.get(campaign.get_absolute_url())
    client.post(fight, form_fields(page, fight, name="Ambush"), **HX)
    client.post(reverse("campaigns:encounter_action", args=[campaign.pk, "next"]), **HX)
    clock = client.get(reverse("campaigns:region", args=[campaign.pk, "clock"]))
    assert "round <span data-round>2</span>" in clock.content.decode()
    assert "Next round" not in text_of(clock) and "End combat" not in text_of(clock)
    client.post(reverse("campaigns:encounter_action", args=[campaign.pk, "end"]), **HX)
    campaign.refresh_from_db()
    fought = campaign.game_minutes  # two rounds, rounded up to whole minutes
    assert campaign.round == 0 and fought >= 1
    # Game time passes through the clock's one control, in the Time part, in the system's units (issue 36, item 7).
    unit = SYSTEMS[campaign.system].time_units()[0]
    time_url = reverse("campaigns:time_advance", args=[campaign.pk])
    fields = form_fields(client.get(campaign.get_absolute_url()), time_url, unit=unit.key, count="3")
    client.post(time_url, fields, **HX)
    clock = client.get(reverse("campaigns:region", args=[campaign.pk, "clock"]))
    assert "Not in combat" in text_of(clock)
    campaign.refresh_from_db()
    assert (campaign.round, campaign.game_minutes) == (0, fought + 3 * unit.minutes)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "advance"}, "how many minutes"),
        ({"action": "rewind"}, "valid choice"),
        ({"action": "advance", "minutes": "-5"}, "greater than or equal to 1"),
        ({"action": "next_round"}, "run from the encounter tracker"),
        ({"action": "end_combat"}, "run from the encounter tracker"),
    ],
)
def test_bad_clock_moves_are_refused_readably(data, message, campaign, gm, as_user):
    response = as_user(gm).post(reverse("campaigns:clock", args=[campaign.pk]), data, **HX)
    assert response.status_code == 422
    assert message in response.content.decode()
    campaign.refresh_from_db()
    assert (campaign.round, campaign.game_minutes) == (0, 0)


def test_the_gm_rolls_without_a_character_and_sees_the_exact_odds(campaign, gm, as_user):
    client = as_user(gm)
    url = reverse("campaigns:gm_roll", args=[campaign.pk])
    fields = form_fields(client.get(campaign.get_absolute_url()), url, count=2, sides="6", target=7)
    odds = client.get(reverse("campaigns:gm_roll_odds", args=[campaign.pk]), fields, **HX)
    assert 'data-odds="7/12"' in odds.content.decode()
    response = client.post(url, fields | {"label": ["wandering monster"]}, **HX)
    assert response.status_code == 200
    roll = Roll.objects.get(campaign=campaign)
    assert roll.character is None and roll.label == "wandering monster"
    assert len(roll.dice) == 2 and roll.odds == {"pass": "7/12", "fail": "5/12"}
    assert f'data-roll="{roll.pk}"' in response.content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"count": 0, "sides": "6"}, "at least 1"),
        ({"count": 1, "sides": "7"}, "choose one"),
        ({"count": 1, "sides": "6", "visibility": "everyone"}, "who may see"),
    ],
)
def test_bad_gm_rolls_are_refused_readably(data, message, campaign, gm, as_user):
    response = as_user(gm).post(reverse("campaigns:gm_roll", args=[campaign.pk]), data, **HX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not Roll.objects.exists()


def test_the_log_shows_the_latest_50_then_older_on_demand(hero, player, gm, as_user):
    Roll.objects.bulk_create(
        [
            Roll(
                campaign=hero.campaign,
                character=hero,
                roller=player,
                label=f"roll {n}",
                procedure="test",
                outcome="pass",
            )
            for n in range(70)
        ]
    )
    rolls = list(Roll.objects.filter(campaign=hero.campaign).order_by("-pk"))
    page = as_user(gm).get(reverse("campaigns:region", args=[hero.campaign_id, "log"])).content.decode()
    assert page.count('class="roll"') == 50
    assert f'data-roll="{rolls[0].pk}"' in page and f'data-roll="{rolls[50].pk}"' not in page
    assert f"?before={rolls[49].pk}" in page
    older = as_user(gm).get(reverse("campaigns:older_rolls", args=[hero.campaign_id]), {"before": rolls[49].pk})
    assert f'data-roll="{rolls[50].pk}"' in older.content.decode()
    assert (
        as_user(gm).get(reverse("campaigns:older_rolls", args=[hero.campaign_id]), {"before": "x"}).status_code == 400
    )


def test_a_character_leaving_with_its_player_leaves_the_table(hero, player, as_user):
    as_user(player).post(reverse("campaigns:leave", args=[hero.campaign_id]))
    hero.refresh_from_db()
    assert hero.campaign is None
    assert hero.owner == player


def test_make_character_helper_is_usable(player, campaign):
    assert make_character(player, campaign, name="Extra").campaign == campaign


def test_a_card_refetch_costs_a_few_queries(hero, gm, as_user, django_assert_max_num_queries):
    """Every open table page re-fetches a card on each change to its character: keep it cheap."""
    client = as_user(gm)
    url = reverse("campaigns:card", args=[hero.campaign_id, hero.pk])
    with django_assert_max_num_queries(8):
        assert client.get(url).status_code == 200
