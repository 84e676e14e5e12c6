"""Per-campaign rule settings (rules-spec §5.1): what a setting accepts, and how a table's values are read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import RulesError
from rules.settings import SETTING_LIST_MAX, Setting, in_force, validated

HELP = Setting(
    "help", "Helpers' advantage", "stack", "How many helpers count.", choices=(("stack", "All"), ("one", "One"))
)
GAIN = Setting("gain", "HP gained", 1, "HP a character gains.", kind="int", minimum=1, maximum=6)
SPILL = Setting("spill", "Spill", True, "Harm spills over.", kind="bool")
XP = Setting("xp", "XP table", [0, 2000, 4000], "XP per level.", kind="list", item_kind="int", minimum=0, min_items=1)
SPELLS = Setting("spells", "Spell list", ["Light"], "Spells to learn.", kind="list", min_items=1)
ALL = (HELP, GAIN, SPILL, XP, SPELLS)


def test_in_force_fills_every_default_and_keeps_what_a_table_stored():
    assert in_force(ALL, None) == {
        "help": "stack",
        "gain": 1,
        "spill": True,
        "xp": [0, 2000, 4000],
        "spells": ["Light"],
    }
    assert in_force(ALL, {"gain": 3, "spells": ["Sleep", "Light"]})["gain"] == 3
    assert in_force(ALL, {"spells": ["Sleep", "Light"]})["spells"] == ["Sleep", "Light"]


def test_a_stored_value_that_no_longer_fits_falls_back_to_the_default():
    assert in_force(ALL, {"gain": 99, "help": "nonsense", "unknown": 1}) == in_force(ALL, None)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"gain": 0}, "HP gained must be at least 1"),
        ({"gain": "lots"}, "HP gained must be a whole number"),
        ({"gain": True}, "whole number"),
        ({"gain": "9" * 40}, "whole number"),
        ({"help": "three"}, "choose one of All, One"),
        ({"spill": "perhaps"}, "yes or no"),
        ({"xp": ""}, "at least 1 entry"),
        ({"xp": "0\n-5"}, "at least 0"),
        ({"xp": "0\nten"}, "whole number"),
        ({"spells": "Light\nLight"}, "twice"),
        ({"spells": "x" * 101}, "1 to 100 characters"),
        ({"spells": "\n".join(f"s{i}" for i in range(SETTING_LIST_MAX + 1))}, "at most 100 entries"),
        ({"surprise": 1}, "no rule setting called surprise"),
    ],
)
def test_bad_values_are_refused_with_a_sentence(changes, message):
    with pytest.raises(RulesError, match=message):
        validated(ALL, changes, "Test game")


def test_form_text_becomes_stored_values():
    values = validated(ALL, {"gain": " 3 ", "spill": "no", "xp": "0\n 1500 \n\n3000", "spells": "Sleep\nLight"}, "T")
    assert values == {"gain": 3, "spill": False, "xp": [0, 1500, 3000], "spells": ["Sleep", "Light"]}


def test_values_read_as_words():
    assert HELP.shown("one") == "One"
    assert SPILL.shown(False) == "no"
    assert XP.shown([0, 10]) == "0, 10"


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_an_int_setting_accepts_exactly_its_range(value):
    if 1 <= value <= 6:
        assert GAIN.coerce(str(value)) == value
    else:
        with pytest.raises(RulesError):
            GAIN.coerce(value)
