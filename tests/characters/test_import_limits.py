"""An imported character meets the caps every other path holds it to, system by system (issue 23).

Hiring stops at the rules' limit (WIL's face, C&C's retainers by WIL, Grit & Flesh's four helpers) and at the
app's own cap where the rules set none; learning stops at WIL's or INT's face; C&C carries one spare shield.
A file is a whole sheet arriving at once: it is refused with a sentence past any of them, and creates nothing.
"""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from characters.models import Character, Hireling
from characters.services import MAX_HIRELINGS, MAX_ITEMS, hireling_hire
from characters.transfer import export_character
from rules import SYSTEMS
from rules import base as rules_base
from tests.conftest import make_character
from tests.pages import text_of

pytestmark = pytest.mark.django_db


def _import(client, document: dict):
    upload = SimpleUploadedFile("sheet.json", json.dumps(document).encode(), content_type="application/json")
    return client.post(reverse("characters:import"), {"file": upload})


def _counted_kind(rules) -> str:
    """A kind of hired help that counts against the system's limit (a C&C retainer, anyone elsewhere)."""
    return next(k for k in Hireling.Kind.values if rules.counts_against_limit(rules_base.Hireling(name="x", kind=k)))


def _most_hirelings(rules, hero) -> int:
    limit = rules.hireling_limit(hero.checked_sheet())
    return MAX_HIRELINGS if limit is None else min(limit, MAX_HIRELINGS)


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_an_import_with_one_hireling_past_the_limit_is_refused_and_one_at_it_is_taken(system_id, player, as_user):
    rules = SYSTEMS[system_id]
    hero = make_character(player, None, system=system_id)
    most = _most_hirelings(rules, hero)
    kind = _counted_kind(rules)
    document = export_character(hero)
    rows = [{"name": f"Helper {n}", "kind": kind, "state": {}, "wage": 0} for n in range(most + 1)]
    client = as_user(player)
    response = _import(client, {**document, "hirelings": rows})
    assert response.status_code == 400
    assert re.search(rf"\b{most}\b", text_of(response))  # the limit, in the rules' sentence or the app's
    assert Character.objects.count() == 1
    response = _import(client, {**document, "hirelings": rows[:most]})
    assert response.status_code == 302
    assert Character.objects.exclude(pk=hero.pk).get().hirelings.count() == most


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_an_import_of_500_hirelings_is_refused(system_id, player, as_user):
    """The report's file: 500 C&C retainers where 4 were allowed. Every system refuses it."""
    rules = SYSTEMS[system_id]
    hero = make_character(player, None, system=system_id)
    rows = [{"name": f"Retainer {n}", "kind": _counted_kind(rules), "state": {}, "wage": 0} for n in range(500)]
    response = _import(as_user(player), {**export_character(hero), "hirelings": rows})
    assert response.status_code == 400 and "500 hirelings" in text_of(response)
    assert Character.objects.count() == 1


def test_an_import_past_the_item_cap_of_the_sheet_is_refused(player, as_user):
    hero = make_character(player, None, system="fortunes-favor")
    rows = [{"name": "Pebble", "kind": "gear", "slots": 0, "quantity": 1}] * (MAX_ITEMS + 1)
    response = _import(as_user(player), {**export_character(hero), "items": rows})
    assert response.status_code == 400 and f"at most {MAX_ITEMS}" in text_of(response)


def test_chaos_conquest_retainers_mislabelled_as_porters_still_count(player, as_user):
    rules = SYSTEMS["chaos-conquest"]
    hero = make_character(player, None, system="chaos-conquest")
    most = rules.hireling_limit(hero.checked_sheet())
    rows = [{"name": f"R{n}", "kind": "hireling", "state": {"role": "retainer"}, "wage": 0} for n in range(most + 1)]
    response = _import(as_user(player), {**export_character(hero), "hirelings": rows})
    assert response.status_code == 400 and f"{most + 1} retainers" in text_of(response)


def test_chaos_conquest_porters_do_not_count_against_wil(player, as_user):
    rules = SYSTEMS["chaos-conquest"]
    hero = make_character(player, None, system="chaos-conquest")
    most = rules.hireling_limit(hero.checked_sheet())
    rows = [{"name": f"P{n}", "kind": "hireling", "state": {}, "wage": 0} for n in range(most + 3)]
    assert _import(as_user(player), {**export_character(hero), "hirelings": rows}).status_code == 302


def test_chaos_conquest_an_import_with_three_shields_is_refused(player, as_user):
    hero = make_character(player, None, system="chaos-conquest")
    document = export_character(hero)
    document["items"] = [
        {"name": f"Shield {n}", "kind": "shield", "slots": 1, "quantity": 1, "worn": n == 0, "data": {}}
        for n in range(3)
    ]
    response = _import(as_user(player), document)
    assert response.status_code == 400 and "3 shields" in text_of(response)
    assert Character.objects.count() == 1
    document["items"].pop()
    assert _import(as_user(player), document).status_code == 302


@pytest.mark.parametrize(
    ("system_id", "field", "attribute", "path"),
    [
        ("fell-draft", "spells", "WIL", ("abilities", "WIL", "full_die")),
        ("fell-draft", "skills", "INT", ("abilities", "INT", "full_die")),
        ("fell-late", "spells", "WIL", ("attributes", "WIL", "original")),
        ("fell-late", "skills", "INT", ("attributes", "INT", "original")),
    ],
)
def test_fell_an_import_knowing_more_than_the_ability_allows_is_refused(
    system_id, field, attribute, path, player, as_user
):
    hero = make_character(player, None, system=system_id)
    document = export_character(hero)
    group, name, key = path
    face = document["state"][group][name][key]
    document["state"][field] = [f"known {n}" for n in range(face + 1)]
    response = _import(as_user(player), document)
    assert response.status_code == 400
    assert f"{face + 1} {field}" in text_of(response) and f"{attribute} d{face}" in text_of(response)
    document["state"][field] = document["state"][field][:face]
    assert _import(as_user(player), document).status_code == 302


@pytest.mark.parametrize(
    ("system_id", "group", "key"), [("fell-draft", "abilities", "die"), ("fell-late", "attributes", "die")]
)
def test_fell_a_wounded_character_with_a_full_retinue_imports_as_it_exported(system_id, group, key, player, as_user):
    """Harm lowers WIL's die for a while; the hirelings hired at full strength stay, and so does the file."""
    rules = SYSTEMS[system_id]
    hero = make_character(player, None, system=system_id)
    most = rules.hireling_limit(hero.checked_sheet())
    document = export_character(hero)
    document["hirelings"] = [{"name": f"H{n}", "kind": "hireling", "state": {}, "wage": 0} for n in range(most)]
    document["state"][group]["WIL"][key] = 4
    if "points" in document["state"][group]["WIL"]:
        document["state"][group]["WIL"]["points"] = min(4, document["state"][group]["WIL"]["points"])
    assert _import(as_user(player), document).status_code == 302


def test_fortunes_favor_hiring_stops_at_the_apps_cap(player):
    """Fortune's Favor sets no number on helpers: the app's own cap holds, on hiring as on import."""
    hero = make_character(player, None, system="fortunes-favor")
    Hireling.objects.bulk_create(
        Hireling(character=hero, name=f"H{n}", kind="helper", state={}) for n in range(MAX_HIRELINGS)
    )
    with pytest.raises(rules_base.RulesError, match=f"at most {MAX_HIRELINGS} hirelings"):
        hireling_hire(character_id=hero.pk, choices={"name": "One more"}, by=player)
    assert hero.hirelings.count() == MAX_HIRELINGS
