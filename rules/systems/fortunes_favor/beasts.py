"""Fortune's Favor 1b, Beast Bond: what the Beastmaster's beast does in a Setup and a Follow-up, from its abilities.

RulesGraph 1b @ 6cff1a6 (playerClasses/beastmaster.ts, ``extra.beastMasterPet``; rules/data/fortunes_favor_extras.py
BEASTS) lists each beast's Setup and Follow-up abilities. Setup and Follow-up (the Beastmaster's level 1 features)
work only through them: when you make the Setup, the beast follows up only if it has a Follow-up; when you command a
Follow-up, the beast opens with its Setup, so a beast without one cannot. Each ability is a rule here:

- Heavy Blow (Large, Follow-up): the beast's Follow-up damage one step up.
- Surprise Strike (Small ground, Follow-up): two steps up while the target cannot see the beast.
- Takedown (Medium, Follow-up): the target makes a Mettle test 13/8, Prone on a Fail, Slowed on a Mixed (the
  target's roll: the summary says so).
- Menacing Attack (Medium, Setup): your Follow-up's damage one step up.
- Raking Attack (Small flying, Setup): your Heart added to your Follow-up's damage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import Param, RulesError, Sheet
from rules.data import fortunes_favor_extras as extras
from rules.dice import ff_damage_step
from rules.systems.fortunes_favor.state import readable_state, stat

SETUP, FOLLOW_UP = "Setup", "Follow-up"
STEPS = {"Heavy Blow": 1, "Menacing Attack": 1}  # damage steps up, always
UNSEEN_STEPS = {"Surprise Strike": 2}  # damage steps up while the target cannot see the beast
ADDS_STAT = {"Raking Attack": "heart"}  # your stat added to your Follow-up's damage
TAKEDOWN = "Takedown"


def ability(state: Mapping[str, Any], kind: str) -> str:
    """The name of the chosen beast's ability of this kind (Setup or Follow-up); "" when it has none."""
    beast = state["feats"]["beast"]
    if not beast:
        return ""
    return next((name for k, name, _ in extras.BEASTS[beast]["abilities"] if k == kind), "")


def _beast_name(state: Mapping[str, Any]) -> str:
    return str(extras.BEASTS[state["feats"]["beast"]]["name"]).split(" (")[0]


def check(state: Mapping[str, Any], maneuver: str) -> None:
    """Refuse a Follow-up the beast cannot open: it has no Setup, or it is down."""
    if maneuver != FOLLOW_UP:
        return
    if not ability(state, SETUP):
        raise RulesError(f"Your {_beast_name(state)} has no Setup to open with, so it cannot lead a Follow-up.")
    if state["feats"]["beast_health"] <= 0:
        raise RulesError("Your beast is down: it cannot attack until it has Health again.")


def follows_up(state: Mapping[str, Any]) -> bool:
    """After your Setup the beast follows up only if it has a Follow-up and is not down."""
    return bool(ability(state, FOLLOW_UP)) and state["feats"]["beast_health"] > 0


def follow_up_damage(state: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[tuple[int, ...], int, list[str]]:
    """The beast's Follow-up damage: its dice and stat, with its Follow-up ability (Heavy Blow, Surprise Strike);
    the notes name what changed it or what the target must roll (Takedown)."""
    count, die, key = extras.BEASTS[state["feats"]["beast"]]["damage"]
    pool: tuple[int, ...] = (die,) * count
    bonus = int(extras.BEASTS[state["feats"]["beast"]]["stats"][key])
    name = ability(state, FOLLOW_UP)
    steps = STEPS.get(name, 0) + (UNSEEN_STEPS.get(name, 0) if params.get("beast_unseen") else 0)
    notes = []
    if steps:
        pool = ff_damage_step(pool, steps)
        notes.append(f"{name}: {steps} step{'s' if steps > 1 else ''} up")
    if name == TAKEDOWN:
        notes.append(f"{TAKEDOWN}: the target tests Mettle 13/8, Prone on a Fail, Slowed on a Mixed")
    return pool, bonus, notes


def setup_boost(state: Mapping[str, Any]) -> tuple[int, int, list[str]]:
    """What the beast's Setup ability adds to your Follow-up's damage: (steps, bonus, notes)."""
    name = ability(state, SETUP)
    steps = STEPS.get(name, 0)
    bonus = stat(state, ADDS_STAT[name]) if name in ADDS_STAT else 0
    notes = []
    if steps:
        notes.append(f"{name}: {steps} step up")
    if name in ADDS_STAT:
        notes.append(f"{name}: {bonus:+d}")
    return steps, bonus, notes


def params(sheet: Sheet | None) -> tuple[Param, ...]:
    """Surprise Strike's situation, offered to a Beastmaster whose beast has it."""
    state = readable_state(sheet)
    if state is None:
        return ()
    if ability(state, FOLLOW_UP) not in UNSEEN_STEPS:
        return ()
    name = ability(state, FOLLOW_UP)
    return (
        Param(
            "beast_unseen",
            f"The target cannot see your beast ({name})",
            "bool",
            False,
            help="Its Follow-up's damage is two steps up.",
        ),
    )
