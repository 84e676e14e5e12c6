"""Dice rolled by hand (issue 27), one contract over every system and every procedure that rolls.

Faces typed from dice rolled at the table resolve exactly as the server's dice would with those faces scripted:
at the rules (every sheet the contract makes, every outcome the dice reach) and through the roll service (the
stored roll and the sheet it leaves). Typed dice that do not fit the roll (too few, too many, a die of another
size, a face not on its die, text) are refused with a sentence and save nothing.
"""

from __future__ import annotations

import random
from functools import partial

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.models import Campaign
from characters import services
from characters.models import Character, Roll
from rules.base import RulesError, check_params
from rules.dice import ScriptedRandom
from rules.free import FREE_ROLL
from rules.hand import roll_by_hand
from tests.contract.test_contract import _playable_procedures, _sheets
from tests.pages import roll_form, text_of

SEEDS = 160  # rolls tried per procedure and sheet to reach its outcomes (rare ones: a natural 20 is 1 in 20)
HTMX = {"HTTP_HX_REQUEST": "true"}


class _Recording(random.Random):
    """A seeded source that keeps the (sides, face) of every die it rolls."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.dice: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        face = super().randint(a, b)
        self.dice.append((b, face))
        return face


def _faces_by_outcome(procedure, sheet, params) -> dict[str, list[tuple[int, int]]]:
    """For each outcome the dice reach, the first dice seen giving it (procedures that roll no die: none)."""
    found: dict[str, list[tuple[int, int]]] = {}
    for seed in range(SEEDS):
        source = _Recording(seed)
        try:
            result = procedure.roll(sheet, params, source)
        except RulesError:
            return found  # refused before or whatever the dice (not open to this sheet now)
        if source.dice and result.outcome not in found:
            found[result.outcome] = source.dice
    return found


def _typed(dice: list[tuple[int, int]], sizes: bool = True) -> str:
    return " ".join(f"d{sides}:{face}" if sizes else str(face) for sides, face in dice)


def _bad_entries(dice: list[tuple[int, int]]) -> dict[str, str]:
    """Each way typed dice can fail to fit, and a word its refusal must hold."""
    (sides, face), *_ = dice
    other = sides + 1 if sides < 100 else sides - 1
    bad = {
        "too many": (_typed([*dice, (sides, 1)]), "needs"),
        "another die": (_typed([(other, 1), *dice[1:]]), f"is a d{sides}, not a d{other}"),
        "off its die": (_typed([(sides, sides + 1), *dice[1:]]), "not one of its faces"),
        "text": ("fourteen", "not a face"),
        "nothing": ("  ", "Type the faces"),
    }
    if len(dice) > 1:
        bad["too few"] = (_typed(dice[:-1]), "needs")
    return dict(bad.values())  # entry -> a word of its refusal


def test_typed_faces_resolve_as_the_server_dice_and_bad_ones_are_refused(system, hero):
    """At the rules: every procedure, every sheet the contract makes, every outcome reached."""
    checked = set()
    for sheet in _sheets(system, hero):
        for key, procedure, params in _playable_procedures(system, sheet):
            for outcome, dice in _faces_by_outcome(procedure, sheet, params).items():
                scripted = procedure.roll(sheet, params, ScriptedRandom(face for _, face in dice))
                rolling = partial(procedure.roll, sheet, params)
                for sizes in (True, False):
                    by_hand = roll_by_hand(rolling, _typed(dice, sizes))
                    assert by_hand == scripted, (key, outcome, dice)
                for entry, words in _bad_entries(dice).items():
                    with pytest.raises(RulesError, match=words):
                        roll_by_hand(rolling, entry)
                checked.add((key, outcome))
    assert checked, "no procedure rolled any dice"


def test_the_tables_own_rolls_take_typed_faces_the_same_way(system):
    """The GM's rolls for no character (a system's table rolls, the free roll): the same contract, sheet None."""
    procedures = {**system.table_procedures(), FREE_ROLL.key: FREE_ROLL}
    for key, procedure in procedures.items():
        try:
            params = check_params(procedure, None, {"count": 2, "target": 7} if procedure is FREE_ROLL else {})
        except RulesError:
            continue
        rolling = partial(procedure.roll, None, params)
        for outcome, dice in _faces_by_outcome(procedure, None, params).items():
            scripted = procedure.roll(None, params, ScriptedRandom(face for _, face in dice))
            assert roll_by_hand(rolling, _typed(dice)) == scripted, (key, outcome, dice)
            for entry, words in _bad_entries(dice).items():
                with pytest.raises(RulesError, match=words):
                    roll_by_hand(rolling, entry)


class _Undo(Exception):
    pass


def _through_the_service(hero: Character, key: str, by, **how) -> tuple:
    """What the roll service stores and leaves on the sheet for this roll, then rolled back: the next try starts
    from the same sheet (and its line is never pushed: the transaction does not commit)."""
    try:
        with transaction.atomic():
            roll = services.character_roll(character_id=hero.pk, procedure=key, params={}, by=by, **how).row
            after = Character.objects.get(pk=hero.pk)
            raise _Undo((roll.outcome, roll.dice, roll.summary, roll.total, roll.odds, roll.by_hand, after.state))
    except _Undo as done:
        return done.args[0]


@pytest.fixture
def hand_table(table):
    table.hand_dice = Campaign.HandDice.PLAYERS
    table.save(update_fields=["hand_dice"])
    return table


def test_a_hand_roll_through_the_service_equals_the_server_roll_with_those_faces(system, hand_table, hero, player):
    """Through the roll service, for every procedure and outcome of the contract's hero: the same roll stored, the
    same sheet left, marked as rolled by hand; a bad entry is refused with a sentence and saves nothing."""
    sheet = hero.checked_sheet()
    compared = 0
    for key, procedure, params in _playable_procedures(system, sheet):
        if procedure.gm_only:
            continue
        for dice in _faces_by_outcome(procedure, sheet, params).values():
            try:
                server = _through_the_service(hero, key, player, rng=ScriptedRandom(face for _, face in dice))
            except RulesError:
                continue  # the app refuses it here (a pick the defaults leave open): nothing to compare
            by_hand = _through_the_service(hero, key, player, hand=_typed(dice, sizes=False))
            assert by_hand[:-2] == server[:-2] and by_hand[-1] == server[-1], (key, dice)
            assert by_hand[-2] is True and server[-2] is False
            compared += 1
            before = (Roll.objects.count(), Character.objects.get(pk=hero.pk).version)
            for entry, words in _bad_entries(dice).items():
                with pytest.raises(RulesError, match=words):
                    services.character_roll(character_id=hero.pk, procedure=key, params={}, by=player, hand=entry)
            assert (Roll.objects.count(), Character.objects.get(pk=hero.pk).version) == before
    assert compared, "no roll compared"


def test_the_roll_form_takes_typed_faces_and_refuses_bad_ones_with_a_sentence(
    system, hand_table, hero, player, as_user
):
    """Over HTTP, with the fields the sheet's roll form renders: a hand roll lands marked, a bad one saves nothing."""
    sheet = hero.checked_sheet()
    client = as_user(player)
    for key, procedure, params in _playable_procedures(system, sheet):
        found = _faces_by_outcome(procedure, sheet, params)
        if procedure.gm_only or not found:
            continue
        dice = next(iter(found.values()))
        before = (Roll.objects.count(), Character.objects.get(pk=hero.pk).version)
        url, fields = roll_form(client, hero, key, hand="d3:1")
        response = client.post(url, fields, **HTMX)
        assert response.status_code == 422 and "is a d" in text_of(response), text_of(response)
        assert (Roll.objects.count(), Character.objects.get(pk=hero.pk).version) == before
        url, fields = roll_form(client, hero, key, hand=_typed(dice, sizes=False))
        response = client.post(url, fields, **HTMX)
        if response.status_code == 422:
            continue  # refused by the app at its defaults (nothing open to this hero): the next procedure
        assert response.status_code == 200, text_of(response)
        roll = Roll.objects.latest("pk")
        assert roll.by_hand and [d["face"] for d in roll.dice] == [face for _, face in dice]
        assert "rolled by hand" in text_of(response)
        page = client.get(hero.get_absolute_url())
        assert f'id="roll-{roll.pk}"' in page.content.decode() and "rolled by hand" in text_of(page)
        history = client.get(reverse("characters:history", args=[hero.pk]))
        assert history.status_code == 200
        return
    pytest.fail("no roll made by hand through the form")
