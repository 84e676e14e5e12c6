"""Character pages over real HTTP: who may see and change what, errors people can read, fixed query counts."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from characters.services import character_roll
from characters.transfer import export_character
from rules import SYSTEMS, system_for
from rules.base import check_params
from tests.conftest import make_character
from tests.pages import roll_form, sheet_form

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def _who(request, who):
    return None if who == "anonymous" else request.getfixturevalue(who)


# --- permissions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "expected"),
    [("anonymous", 302), ("stranger", 404), ("player", 200), ("other_player", 200), ("gm", 200)],
)
def test_a_sheet_is_seen_by_its_table_only(who, expected, hero, as_user, request):
    response = as_user(_who(request, who)).get(hero.get_absolute_url())
    assert response.status_code == expected


@pytest.mark.parametrize(
    ("who", "expected"), [("anonymous", 302), ("stranger", 404), ("other_player", 404), ("player", 200), ("gm", 200)]
)
def test_only_the_owner_and_the_gm_change_a_sheet(who, expected, hero, as_user, request):
    response = as_user(_who(request, who)).post(
        reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}
    )
    assert response.status_code in ({302, 200} if expected == 200 else {expected})
    hero_after = Character.objects.get(pk=hero.pk)
    assert (hero_after.version > hero.version) == (expected == 200)


@pytest.mark.parametrize(
    ("name", "method", "args", "data"),
    [
        ("characters:roll", "post", ["test"], {"ability": "BOD"}),
        ("characters:odds", "get", ["test"], {}),
        ("characters:control", "get", ["take_harm"], {}),
        ("characters:item_add", "post", [], {"name": "Rope", "kind": "gear", "slots": 1, "quantity": 1}),
        ("characters:hire", "post", [], {"name": "Pim"}),
        ("characters:rename", "post", [], {"name": "X", "version": 1}),
        ("characters:export", "get", [], {}),
    ],
)
@pytest.mark.parametrize("who", ["stranger", "other_player"])
def test_other_people_get_404_on_every_write_and_private_view(name, method, args, data, who, hero, as_user, request):
    client = as_user(_who(request, who))
    response = getattr(client, method)(reverse(name, args=[hero.pk, *args]), data)
    assert response.status_code == 404
    assert Character.objects.get(pk=hero.pk).version == hero.version


def test_only_the_owner_deletes(hero, gm, player, as_user):
    assert as_user(gm).post(reverse("characters:delete", args=[hero.pk])).status_code == 404
    assert as_user(player).get(reverse("characters:delete", args=[hero.pk])).status_code == 200
    as_user(player).post(reverse("characters:delete", args=[hero.pk]))
    assert not Character.objects.filter(pk=hero.pk).exists()


def test_readers_see_no_roll_controls(hero, other_player, as_user):
    page = as_user(other_player).get(hero.get_absolute_url()).content.decode()
    assert 'id="roll-panel"' not in page
    assert "Add equipment" not in page


# --- rolling and odds -------------------------------------------------------------------------


def test_every_roll_control_carries_its_exact_odds(hero, player, as_user):
    page = as_user(player).get(hero.get_absolute_url()).content.decode()
    rules = system_for("fell-draft")
    sheet = hero.to_sheet()
    test = rules.procedures()["test"]
    exact = test.odds(sheet, check_params(test, sheet, {})).success
    assert f'data-odds="{exact.numerator}/{exact.denominator}"' in page
    assert f"{float(round(exact * 100, 1)):.1f}%" in page


def test_odds_follow_the_modifiers_picked(hero, player, as_user):
    url = reverse("characters:odds", args=[hero.pk, "test"])
    client = as_user(player)
    plain = client.get(url, roll_form(client, hero, "test", ability="BOD")[1], **HX).content.decode()
    helped = client.get(url, roll_form(client, hero, "test", ability="BOD", advantage="2")[1], **HX).content.decode()
    rules = system_for("fell-draft")
    test = rules.procedures()["test"]
    sheet = hero.to_sheet()
    for html, params in ((plain, {"ability": "BOD"}), (helped, {"ability": "BOD", "advantage": 2})):
        p = test.odds(sheet, check_params(test, sheet, params)).success
        assert f'data-odds="{p.numerator}/{p.denominator}"' in html
    assert Fraction(_odds_of(helped)) > Fraction(_odds_of(plain))


def _odds_of(html: str) -> str:
    return html.split('data-odds="', 1)[1].split('"', 1)[0]


def test_odds_with_a_bad_modifier_say_why(hero, gm, as_user):
    client = as_user(gm)
    response = client.get(
        reverse("characters:odds", args=[hero.pk, "test"]), roll_form(client, hero, "test", dn="99")[1], **HX
    )
    assert response.status_code == 200
    assert "at most" in response.content.decode()


def test_rolling_with_htmx_returns_the_log_with_every_die(hero, player, as_user):
    client = as_user(player)
    response = client.post(*roll_form(client, hero, "test", ability="BOD"), **HX)
    assert response.status_code == 200
    html = response.content.decode()
    roll = Roll.objects.filter(character=hero, procedure="test").get()
    assert f'data-roll="{roll.pk}"' in html
    for die in roll.dice:
        assert f"d{die['sides']}:{die['face']}" in html


def test_rolling_without_htmx_redirects_to_the_sheet(hero, player, as_user):
    client = as_user(player)
    response = client.post(*roll_form(client, hero, "test", ability="BOD"))
    assert response.status_code == 302
    assert response["Location"] == hero.get_absolute_url()


@pytest.mark.parametrize(
    ("data", "message"), [({"dn": "0"}, "at least 1"), ({"dn": "99"}, "at most"), ({"ability": "CHA"}, "choose one")]
)
def test_bad_roll_inputs_are_refused_readably_and_roll_nothing(data, message, hero, gm, as_user):
    client = as_user(gm)
    url, fields = roll_form(client, hero, "test", **data)
    response = client.post(url, fields, **HX)
    assert response.status_code == 422
    assert message in response.content.decode()
    response = client.post(url, fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Roll.objects.filter(character=hero, procedure="test").exists()


def test_only_the_gm_sets_gm_inputs_and_makes_gm_rolls(hero, player, gm, as_user):
    url = reverse("characters:roll", args=[hero.pk, "test"])
    # the player's form has no DN field: posted by hand, as a tampered form would
    response = as_user(player).post(url, {"test-ability": "BOD", "test-dn": "2"}, **HX)
    assert response.status_code == 422
    assert "Only the GM sets" in response.content.decode()
    gm_roll = next(key for key, proc in system_for("fell-draft").procedures().items() if proc.gm_only)
    response = as_user(player).post(reverse("characters:roll", args=[hero.pk, gm_roll]), {}, **HX)
    assert response.status_code == 422
    assert "Only the GM" in response.content.decode()
    assert as_user(player).get(reverse("characters:odds", args=[hero.pk, gm_roll])).status_code == 404
    assert not Roll.objects.filter(character=hero, procedure__in=["test", gm_roll]).exists()
    page = as_user(player).get(hero.get_absolute_url()).content.decode()
    assert '-dn"' not in page  # the roll panel names inputs "<procedure>-<param>"
    assert 'name="test-dn"' in as_user(gm).get(hero.get_absolute_url()).content.decode()


def test_a_character_at_no_table_is_its_owners_own_game(player, as_user):
    solo = make_character(player, None, name="Solo")
    client = as_user(player)
    response = client.post(*roll_form(client, solo, "test", dn="5"), **HX)
    assert response.status_code == 200
    assert Roll.objects.get(character=solo, procedure="test").inputs["dn"] == 5


def test_a_roll_reads_its_controls_inputs_only_in_their_shape(hero, player, as_user):
    """The roll controls name their inputs "<procedure>-<param>" and nothing sends a plain "<param>" (issue 24): one
    is refused by name, not ignored (the roll would go ahead without it), for the odds as for the roll."""
    client = as_user(player)
    response = client.post(reverse("characters:roll", args=[hero.pk, "test"]), {"ability": "WIL"}, **HX)
    assert response.status_code == 422 and "Test has no option ability." in response.content.decode()
    odds = client.get(reverse("characters:odds", args=[hero.pk, "test"]), {"ability": "WIL"}, **HX)
    assert "Test has no option ability." in odds.content.decode()
    assert not Roll.objects.filter(character=hero, procedure="test").exists()
    response = client.post(*roll_form(client, hero, "test", ability="WIL"), **HX)
    assert response.status_code == 200 and Roll.objects.get(character=hero, procedure="test").inputs["ability"] == "WIL"


def test_form_fields_refuses_a_field_the_form_lacks_unless_it_is_extra(hero, player, as_user):
    """tests.pages.form_fields (issue 24): a change naming no field of the form fails the test that asks for it;
    junk posted on purpose goes in ``extra``."""
    client = as_user(player)
    with pytest.raises(AssertionError, match="has no field 'face'"):
        roll_form(client, hero, "test", face="4")
    url, fields = roll_form(client, hero, "test", {"test-face": "4"}, ability="WIL")
    assert fields["test-face"] == ["4"] and fields["test-ability"] == ["WIL"]


def test_the_client_cannot_send_a_die_result(hero, player, as_user):
    response = as_user(player).post(reverse("characters:roll", args=[hero.pk, "test"]), {"face": "4"}, **HX)
    # the dice are the server's: an input the rules do not have is refused, and nothing is rolled
    assert response.status_code == 422
    assert "has no option face" in response.content.decode()
    assert not Roll.objects.filter(character=hero, procedure="test").exists()


@pytest.mark.parametrize("delta", ["-3.5", "abc", "99999"])
def test_absurd_adjustments_get_a_message_and_change_nothing(delta, hero, player, as_user):
    response = as_user(player).post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": delta}, **HX)
    assert response.status_code == 422
    assert "whole number" in response.content.decode()
    assert Character.objects.get(pk=hero.pk).version == hero.version


def test_a_stale_form_gets_the_fresh_numbers_and_a_message(hero, player, gm, as_user):
    stale = hero.version
    as_user(gm).post(reverse("characters:adjust", args=[hero.pk]), {"key": "hp", "delta": "-1"}, **HX)
    response = as_user(player).post(
        reverse("characters:rename", args=[hero.pk]), {"name": "New", "version": stale}, **HX
    )
    assert response.status_code == 422
    assert "Someone changed this sheet" in response.content.decode()
    assert Character.objects.get(pk=hero.pk).name == "Wren"


# --- visibility -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("visibility", "seen_by"),
    [("public", {"player", "other_player", "gm"}), ("gm", {"player", "gm"}), ("private", {"player"})],
)
def test_hidden_rolls_reach_nobody_else(visibility, seen_by, hero, as_user, request):
    roll = character_roll(
        character_id=hero.pk,
        procedure="test",
        params={"ability": "WIL"},
        by=hero.owner,
        visibility=visibility,
        rng=random.Random(5),
    ).row
    marker = f'data-roll="{roll.pk}"'
    for who in ("player", "other_player", "gm"):
        client = as_user(request.getfixturevalue(who))
        pages = [
            client.get(hero.get_absolute_url()),
            client.get(reverse("characters:region", args=[hero.pk, "log"])),
            client.get(hero.campaign.get_absolute_url()),
            client.get(reverse("campaigns:region", args=[hero.campaign_id, "log"])),
        ]
        for page in pages:
            assert (marker in page.content.decode()) == (who in seen_by), (who, page.request["PATH_INFO"])


# --- inventory and hirelings ------------------------------------------------------------------


def test_adding_a_custom_item_and_dropping_it(hero, player, as_user):
    client = as_user(player)
    response = client.post(
        reverse("characters:item_add", args=[hero.pk]),
        {"name": "Lucky coin", "kind": "treasure", "slots": 0, "quantity": 1},
        **HX,
    )
    assert response.status_code == 200
    assert 'data-item="Lucky coin"' in response.content.decode()
    item = hero.items.get(name="Lucky coin")
    response = client.post(reverse("characters:item_remove", args=[hero.pk, item.pk]), **HX)
    assert 'data-item="Lucky coin"' not in response.content.decode()


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "kind": "gear", "slots": 1},
        {"name": "X", "kind": "spaceship", "slots": 1},
        {"name": "X", "kind": "gear", "slots": -2},
    ],
)
def test_bad_items_are_refused_readably(data, hero, player, as_user):
    count = hero.items.count()
    response = as_user(player).post(reverse("characters:item_add", args=[hero.pk]), {"quantity": 1, **data}, **HX)
    assert response.status_code == 422
    assert 'class="error"' in response.content.decode()
    assert hero.items.count() == count


def test_removing_an_item_of_another_sheet_is_refused(hero, rival, player, as_user):
    theirs = rival.items.first()
    response = as_user(player).post(reverse("characters:item_remove", args=[hero.pk, theirs.pk]), **HX)
    assert response.status_code == 422
    assert Item.objects.filter(pk=theirs.pk).exists()


def test_hiring_adds_a_hireling_row(hero, player, as_user):
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "coins": 50})
    client = as_user(player)
    response = client.post(*sheet_form(client, hero, "hire", name="Pim"), **HX)
    assert response.status_code == 200, response.content.decode()
    assert hero.hirelings.filter(name="Pim").exists()


# --- query counts -----------------------------------------------------------------------------


def _fill(character, items: int, hirelings: int) -> None:
    Item.objects.bulk_create(
        [Item(character=character, name=f"Pebble {n}", kind="gear", slots=0, position=100 + n) for n in range(items)]
    )
    Hireling.objects.bulk_create(
        [Hireling(character=character, name=f"Hand {n}", state={}, wage=5) for n in range(hirelings)]
    )


def _queries(client, url, django_assert_max_num_queries, limit=40) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with django_assert_max_num_queries(limit), CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_sheet_costs_the_same_queries_with_1_or_100_items(player, campaign, as_user, django_assert_max_num_queries):
    small = make_character(player, campaign, name="Small")
    big = make_character(player, campaign, name="Big")
    small.items.all().delete()
    big.items.all().delete()
    _fill(small, 1, 0)
    _fill(big, 100, 10)
    client = as_user(player)
    assert _queries(client, small.get_absolute_url(), django_assert_max_num_queries) == _queries(
        client, big.get_absolute_url(), django_assert_max_num_queries
    )


def test_the_table_costs_the_same_queries_with_a_bigger_party(
    gm, player, campaign, as_user, django_assert_max_num_queries
):
    client = as_user(gm)
    make_character(player, campaign, name="First")
    one = _queries(client, campaign.get_absolute_url(), django_assert_max_num_queries)
    for n in range(5):
        _fill(make_character(player, campaign, name=f"More {n}"), 8, 2)
    assert _queries(client, campaign.get_absolute_url(), django_assert_max_num_queries) == one


# --- export and import ------------------------------------------------------------------------


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_export_then_import_gives_an_identical_character(system, player, as_user):
    original = make_character(player, None, system=system, name="Roundtrip")
    Hireling.objects.create(character=original, name="Pim", kind="hireling", state={}, wage=5)
    client = as_user(player)
    response = client.get(reverse("characters:export", args=[original.pk]))
    assert response["Content-Disposition"].startswith("attachment")
    upload = SimpleUploadedFile("roundtrip.json", response.content, content_type="application/json")
    response = client.post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 302
    copy = Character.objects.exclude(pk=original.pk).get(name="Roundtrip")
    assert export_character(copy) == export_character(original)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json at all", "not JSON"),
        (b'{"format": "foundry"}', "not a Lantern character"),
        (b'{"format": "lantern-character", "format_version": 9}', "format 9"),
        (
            b'{"format": "lantern-character", "format_version": 1, "system": "dnd5e", "name": "X", "state": {}}',
            "does not know",
        ),
        (
            b'{"format": "lantern-character", "format_version": 1, "system": "fell-draft", "name": "X", "state": []}',
            "damaged",
        ),
        (
            b'{"format": "lantern-character", "format_version": 1, "system": "fell-draft", "name": " ", "state": {}}',
            "no name",
        ),
    ],
)
def test_bad_files_are_refused_readably_and_create_nothing(content, message, player, as_user):
    upload = SimpleUploadedFile("bad.json", content, content_type="application/json")
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Character.objects.exists()


def test_an_import_with_a_broken_item_creates_nothing(hero, player, as_user):
    document = export_character(hero)
    document["items"].append({"name": "Bad", "kind": "gear", "slots": 99, "quantity": 1})
    upload = SimpleUploadedFile("bad.json", json.dumps(document).encode(), content_type="application/json")
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400
    assert "out of range" in response.content.decode()
    assert Character.objects.count() == 1


# --- the admin --------------------------------------------------------------------------------


def test_staff_edit_the_catalogue_and_see_who_holds_an_item(hero, as_user, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw-123-lantern")
    entry = CatalogueItem.objects.create(system="fell-draft", name="Test lantern", kind="light", cost=3)
    Item.objects.create(character=hero, catalogue_item=entry, name=entry.name, kind="light")
    client = as_user(admin)
    page = client.get(reverse("admin:characters_catalogueitem_changelist"), {"system__exact": "fell-draft"})
    assert page.status_code == 200
    assert "Test lantern" in page.content.decode()
    assert "Characters holding it" in page.content.decode()
    search = client.get(reverse("admin:characters_catalogueitem_changelist"), {"q": "lantern"})
    assert "Test lantern" in search.content.decode()
    assert client.get(reverse("admin:characters_roll_changelist")).status_code == 200
