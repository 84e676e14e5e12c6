"""rules.hand (issue 27): typed faces as a random source, the refusals in words, and the dice a roll asks for."""

from __future__ import annotations

import pytest

from rules.dice import roll_die
from rules.errors import RulesError
from rules.hand import TypedDie, dice_needed, parse_faces, roll_by_hand


def _attack(source):
    """A d20 to hit; on 11 or more, a d8 of damage: later dice that depend on earlier results."""
    hit = roll_die(source, 20)
    return (hit.face, roll_die(source, 8).face) if hit.face >= 11 else (hit.face,)


@pytest.mark.parametrize(
    ("text", "typed"),
    [
        ("14 5", (TypedDie(14), TypedDie(5))),
        ("14, d8:5", (TypedDie(14), TypedDie(5, 8))),
        ("D20=1", (TypedDie(1, 20),)),
    ],
)
def test_faces_are_read_with_or_without_their_die(text, typed):
    assert parse_faces(text) == typed


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "Type the faces"),
        ("14 five", "Die 2: “five” is not a face"),
        ("-3", "is not a face"),
        ("d1000:3", "not a face"),
        ("d0:1", "a d0 is not a die Lantern rolls"),
        (" ".join(["1"] * 101), "at most 100"),
    ],
)
def test_what_is_not_faces_is_refused_in_words(text, words):
    with pytest.raises(RulesError, match=words):
        parse_faces(text)


def test_dependent_dice_are_typed_in_the_order_the_rules_ask_and_refused_naming_exactly_what_is_needed():
    assert roll_by_hand(_attack, "7") == (7,)  # a miss: no damage die
    assert roll_by_hand(_attack, "15 6") == (15, 6)
    with pytest.raises(RulesError, match=r"This roll needs 2 dice: a d20 and a d8\. You typed 1 face\."):
        roll_by_hand(_attack, "15")
    with pytest.raises(RulesError, match=r"This roll needs 1 die: a d20\. You typed 2 faces\."):
        roll_by_hand(_attack, "7 6")
    with pytest.raises(RulesError, match="Die 2 of this roll is a d8, not a d6"):
        roll_by_hand(_attack, "15 d6:4")
    with pytest.raises(RulesError, match=r"Die 2 is a d8: 9 is not one of its faces \(1 to 8\)"):
        roll_by_hand(_attack, "15 9")


def test_the_form_is_told_which_dice_come_always_and_which_on_some_results():
    needed = dice_needed(_attack)
    assert (needed.always, needed.sometimes) == ((20,), (8,))
    assert needed.words == "a d20, then on some results a d8 more"
    assert dice_needed(lambda source: (roll_die(source, 6), roll_die(source, 6))).words == "a d6 and a d6"
    assert dice_needed(lambda source: None).words == "no dice"
