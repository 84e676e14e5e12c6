"""Faces exactly on a rule's boundary, and one either side, with the exact odds where the procedure has them.

Each test names its seed (../shared/seeds/<file>, the rule under its heading there) and pins what happens AT
the boundary: "meets or exceeds", "equal to or less than", "more than", "higher than", which die, which way a
half rounds. Issue 23 item 6: an audit of one-line wrong-rule mutants of rules/ found these boundaries
unpinned (a ``>=`` read as ``>`` and the like still passed the suite); each test here fails on such a mutant.

Seeds: 000 = 000_72fc736675279766.txt (Fell draft), 001 = 001_9a541ab1b0476299.txt (Fell late),
002 = 002_882aafdbf41b7f4b.txt (Chaos & Conquest), 003 = 003_eeb4db86843669ac.txt (Fortune's Favor),
004 = 004_ebd0e2535c17253c.txt (Grit & Flesh); "spec" is ../shared/rules-spec.md.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from rules.base import Item, Odds, RollResult, RulesError, Sheet, check_params
from rules.dice import ScriptedRandom
from rules.systems.chaos_conquest import SYSTEM as CC
from rules.systems.fell_draft import SYSTEM as FELL_DRAFT
from rules.systems.fell_late import SYSTEM as FELL_LATE
from rules.systems.fortunes_favor import SYSTEM as FF
from rules.systems.fortunes_favor.checks import group_result
from rules.systems.fortunes_favor.inventory import slots_max as ff_slots_max
from rules.systems.fortunes_favor.state import health_max, stamina_max
from rules.systems.grit_flesh import SYSTEM as GRIT_FLESH
from rules.systems.grit_flesh.settings import DEFAULTS as GF_DEFAULTS


def run(system: Any, key: str, sheet: Sheet, faces: list[int], **params: Any) -> tuple[Odds | None, RollResult]:
    """The odds, then the roll on exactly ``faces`` (every scripted face must be used)."""
    proc = system.procedures()[key]
    clean = check_params(proc, sheet, params)
    rng = ScriptedRandom(faces)
    result = proc.roll(sheet, clean, rng)
    assert rng.remaining == 0, f"{rng.remaining} scripted face(s) left over"
    return proc.odds(sheet, clean), result


def odds_of(system: Any, key: str, sheet: Sheet, **params: Any) -> Odds:
    proc = system.procedures()[key]
    odds = proc.odds(sheet, check_params(proc, sheet, params))
    assert odds is not None
    return odds


# --- seed 001, Fell (late revision) ---------------------------------------------------------------


def late_sheet(str_: int = 6, dex: int = 6, wil: int = 6, hp: int = 4, items=(), **extra: Any) -> Sheet:
    settings = extra.pop("settings", {})
    state = FELL_LATE.default_state()
    state["attributes"] = {
        a: {"die": d, "original": d} for a, d in zip(("STR", "DEX", "INT", "WIL"), (str_, dex, 6, wil), strict=True)
    }
    state.update(hp=hp, hp_max=extra.pop("hp_max", hp), **extra)
    return Sheet(FELL_LATE.validate_state(state), tuple(items), (), "Ana", settings=settings)


def rocks(n: int) -> Item:
    return Item("rock", "gear", 1, n, {}, id=50)


SWORD = Item("shortsword", "weapon", 1, 1, {"damage": 6}, id=1)


@pytest.mark.parametrize(
    ("dn", "face", "outcome"),
    [(4, 3, "fail"), (4, 4, "pass"), (4, 5, "pass"), (6, 5, "fail"), (6, 6, "pass")],
)
def test_fell_late_a_test_that_meets_the_dn_passes(dn, face, outcome):
    """Seed 001, Tests: "If you meet or exceed the difficulty number, the test passes": a face equal to the DN
    passes, one below fails. Exact odds on STR d6: DN 4 passes on 4-6 (1/2), DN 6 on a 6 only (1/6)."""
    odds, result = run(FELL_LATE, "test", late_sheet(), [face], attribute="STR", dn=dn)
    assert result.outcome == outcome and result.total == face
    assert odds.of("pass") == Fraction(7 - dn, 6)
    assert odds_of(FELL_LATE, "test", late_sheet(), attribute="STR", dn=5).of("pass") == Fraction(2, 6)


@pytest.mark.parametrize(
    ("str_", "face", "outcome", "die_after"),
    [(6, 3, "critical_fail", 4), (6, 4, "critical_pass", 6), (6, 5, "critical_pass", 6), (4, 3, "dead", 4)]
    + [(4, 4, "critical_pass", 4)],
)
def test_fell_late_critical_harm_test_passes_on_exactly_4(str_, face, outcome, die_after):
    """Seed 001, Harm and Death: critical harm calls for a test of the attribute; the DN is 4 (spec §001.11.7
    [REC]) and a test meeting it passes (Tests). A 3 lowers STR a step (below d4: dead). Exact odds: STR d6
    holds on 4-6 (1/2); STR d4 only on its 4 (1/4), else dead."""
    sh = late_sheet(str_=str_, hp=0, hp_max=4)
    odds, result = run(FELL_LATE, "take_harm", sh, [face], amount=1, armour=False, attribute="STR")
    assert result.outcome == outcome
    assert result.state["attributes"]["STR"]["die"] == die_after
    assert result.state["out"] is (outcome == "critical_fail")
    assert odds.of("critical_pass") == Fraction(str_ - 3, str_)
    assert odds.of("critical_fail" if str_ > 4 else "dead") == Fraction(3, str_)


@pytest.mark.parametrize(("dn", "face", "outcome"), [(4, 3, "cast_with_drawback"), (4, 4, "cast"), (4, 5, "cast")])
def test_fell_late_hurried_cast_at_the_dn_has_no_drawback(dn, face, outcome):
    """Seed 001, Spells: casting in a hurry is a WIL test; only a failed test costs a drawback, and a WIL face
    equal to the DN passes (Tests). Exact odds on WIL d6 at DN 4: 1/2 clean, 1/2 with a drawback."""
    sh = late_sheet(wil=6, spells=["Sleep"])
    odds, result = run(FELL_LATE, "cast", sh, [face], spell="Sleep", way="hurried", drawback="lessened", dn=dn)
    assert result.outcome == outcome
    assert (result.state is None) is (outcome == "cast")  # a clean casting changes nothing on the sheet
    assert dict(odds.outcomes) == {"cast": Fraction(1, 2), "cast_with_drawback": Fraction(1, 2)}


@pytest.mark.parametrize("carried", [11, 12])
def test_fell_late_exactly_full_slots_is_not_over(carried):
    """Seed 001, Item Slots: "You have twice your STR in item slots. When carrying more, you have disadvantage
    and your HP is zero." STR d6 gives 12 (spec §001.11.4); carrying 12 is not more: one die, HP intact."""
    sh = late_sheet(str_=6, hp=4, items=[rocks(carried)])
    assert FELL_LATE.slots(sh).used == carried and FELL_LATE.slots(sh).consequences == ()
    assert FELL_LATE.sheet_facts(sh)["hp_effective"] == 4
    odds, result = run(FELL_LATE, "test", sh, [4], attribute="STR")
    assert result.outcome == "pass" and len(result.dice) == 1
    assert odds.of("pass") == Fraction(1, 2)
    odds, hurt = run(FELL_LATE, "take_harm", sh, [], amount=1, armour=False)
    assert hurt.outcome == "hp_harm" and hurt.state["hp"] == 3 and odds.of("hp_harm") == 1


def test_fell_late_one_slot_over_gives_disadvantage_and_zero_hp():
    """Seed 001, Item Slots: carrying 13 with STR d6 (12 slots) is more: every roll has DIS (Advantage and
    Disadvantage: an extra die, keep the lower) and HP count as zero, so any harm is critical harm."""
    sh = late_sheet(str_=6, hp=4, items=[rocks(13)])
    assert FELL_LATE.slots(sh).consequences != ()
    assert FELL_LATE.sheet_facts(sh)["hp_effective"] == 0
    odds, failed = run(FELL_LATE, "test", sh, [6, 3], attribute="STR")
    assert failed.outcome == "fail" and failed.total == 3  # the lower die is kept
    _, passed = run(FELL_LATE, "test", sh, [4, 5], attribute="STR")
    assert passed.outcome == "pass" and passed.total == 4
    assert odds.of("pass") == Fraction(1, 4)  # both dice 4-6
    odds, hurt = run(FELL_LATE, "take_harm", sh, [6, 3], amount=1, armour=False)
    assert hurt.outcome == "critical_fail" and hurt.state["hp"] == 4  # nothing came off HP: it counts as 0
    assert (odds.of("critical_pass"), odds.of("critical_fail")) == (Fraction(1, 4), Fraction(3, 4))


def test_fell_late_coins_fill_a_slot_per_whole_hundred():
    """Seed 001, Item Slots: "Every hundred coins-worth of treasure and coins fills one slot": 11 rocks and 199
    coins is 12 slots (exactly full); the 200th coin makes 13, over STR d6's 12."""
    assert FELL_LATE.slots(late_sheet(items=[rocks(11)], coins=199)).consequences == ()
    assert FELL_LATE.slots(late_sheet(items=[rocks(11)], coins=200)).consequences != ()


def test_fell_late_carrying_exactly_double_the_slots_is_allowed():
    """Seed 001, Item Slots: "You can never carry more than double your slots": 24 of STR d6's 12 is double,
    allowed; a 25th is refused."""
    assert FELL_LATE.check_can_carry(late_sheet(items=[rocks(23)]), Item("bell", "gear", 1, 1, {})).used == 24
    with pytest.raises(RulesError, match="more than 24"):
        FELL_LATE.check_can_carry(late_sheet(items=[rocks(24)]), Item("bell", "gear", 1, 1, {}))


@pytest.mark.parametrize(("others", "faces", "harm"), [(11, [5], 5), (12, [5, 2], 2)])
def test_fell_late_attack_dice_have_dis_only_when_over_the_slots(others, faces, harm):
    """Seed 001, Item Slots and Attacks: the weapon (1 slot) and 11 rocks fill STR d6's 12 slots exactly: one
    damage die. One more rock: DIS, two dice, the lower kept. Exact odds of 6 harm: 1/6, then 1/36."""
    sh = late_sheet(str_=6, items=[SWORD, rocks(others)])
    odds, result = run(FELL_LATE, "attack", sh, faces, weapon="1")
    assert result.total == harm and len(result.dice) == len(faces)
    assert odds.of("6_harm") == (Fraction(1, 6) if len(faces) == 1 else Fraction(1, 36))


@pytest.mark.parametrize(
    ("attackers", "faces", "raw", "outcome"),
    [
        (1, [6], 6, "hp_harm"),
        (2, [5, 1], 6, "hp_harm"),
        (2, [6, 1, 4], 7, "critical_pass"),
        (3, [4, 1, 1], 6, "hp_harm"),
        (3, [1, 5, 1, 3], 7, "critical_fail"),
    ],
)
def test_fell_late_npc_attack_adds_one_harm_per_extra_attacker(attackers, faces, raw, outcome):
    """Seed 001, Attacks: "use the highest single die result. Then add one harm for each attacker beyond the
    first." Against 6 HP and no armour, harm of exactly 6 empties HP with no critical harm (Harm and Death);
    7 is 1 critical harm and a STR test. Exact odds of critical harm on d6s: 1 attacker never; 2 when the
    highest is a 6 (11/36); 3 when it is 5 or 6 (1 - (4/6)^3 = 19/27); each half passing STR d6 at DN 4."""
    sh = late_sheet(str_=6, hp=6)
    odds, result = run(FELL_LATE, "npc_attack", sh, faces, die="6", attackers=attackers)
    assert result.total == raw and result.outcome == outcome
    assert result.state["hp"] == 0
    critical = {1: Fraction(0), 2: Fraction(11, 36), 3: Fraction(19, 27)}[attackers]
    assert odds.of("hp_harm") == 1 - critical
    assert odds.of("critical_pass") == odds.of("critical_fail") == critical / 2


@pytest.mark.parametrize(
    ("plunder", "outcome", "hp_max"),
    [(1_999, "hoard_grows", 4), (2_000, "reached_professional", 5), (2_001, "reached_professional", 5)],
)
def test_fell_late_a_hoard_of_exactly_3000_gains_hp(plunder, outcome, hp_max):
    """Seed 001, Advancement: "If your hoard is worth ... 3,000 C, gain HP (professional)": a hoard of exactly
    3,000 reaches it (2,999 does not), and it gains HP (+1, spec §001.10 [REC]) but raises no attribute."""
    sh = late_sheet(hp=4, hoard=1_000, advances=1)
    odds, result = run(FELL_LATE, "advance", sh, [], plunder=plunder, attribute="STR")
    assert result.outcome == outcome and result.state["hoard"] == 1_000 + plunder
    assert (result.state["hp_max"], result.state["hp"]) == (hp_max, hp_max)
    assert result.state["attributes"]["STR"]["die"] == 6
    assert odds.outcomes == ((outcome, Fraction(1)),)


@pytest.mark.parametrize(("face", "hp_max"), [(5, 7), (6, 7), (7, 7), (8, 8)])
def test_fell_late_dex_roll_for_hp_takes_the_die_only_when_it_beats_maximum_hp(face, hp_max):
    """Seed 001, Advancement ("gain HP"), spec §001.10's table option: roll the DEX die; if it beats maximum HP
    take it, else +1. A DEX face equal to maximum HP 6 does not beat it: +1, not +0."""
    sh = late_sheet(dex=8, hp=6, settings={"hp_gain": "dex_roll"})
    _, result = run(FELL_LATE, "advance", sh, [face], plunder=1_000, attribute="STR")
    assert result.outcome == "reached_novice" and result.state["hp_max"] == hp_max


# --- seed 004, Grit & Flesh ----------------------------------------------------------------------------


def gf_sheet(**extra: Any) -> Sheet:
    state = GRIT_FLESH.default_state()
    state.update(attributes={"STR": 10, "DEX": 12, "CON": 9, "INT": 8, "WIS": 11, "CHA": 7})
    state.update(grit=6, grit_max=6, flesh=3, flesh_max=3, coins=100)
    state.update(extra)
    return Sheet(GRIT_FLESH.validate_state(state), (), (), "Ana", dict(GF_DEFAULTS))


@pytest.mark.parametrize(("faces", "outcome"), [([11, 4], "out"), ([12, 4], "out"), ([13], "dead")])
def test_grit_flesh_save_vs_death_equal_to_st_survives(faces, outcome):
    """Seed 004, Saving Throws: "If the result is equal to or less than your Saving Throw (ST), you succeed";
    Grit and Flesh: with no Flesh left, save vs death: succeed and pass out for 1d6 rounds, fail and die.
    ST 12: a 12 passes out (then the d6 of rounds), a 13 dies. Exact odds: 12/20 out, 8/20 dead."""
    sh = gf_sheet(grit=0, flesh=1, st=12)
    odds, result = run(GRIT_FLESH, "damage", sh, faces, amount=1)
    assert result.outcome == outcome and result.state["dead"] is (outcome == "dead")
    assert result.state["out_rounds"] == (4 if outcome == "out" else 0)
    assert [d.sides for d in result.dice] == [20, 6][: len(faces)]
    assert dict(odds.outcomes) == {"out": Fraction(12, 20), "dead": Fraction(8, 20)}


@pytest.mark.parametrize(("face", "outcome"), [(11, "pass"), (12, "pass"), (13, "fail")])
def test_grit_flesh_a_save_equal_to_st_succeeds(face, outcome):
    """Seed 004, Saving Throws: d20 equal to or less than ST succeeds. ST 12: 12/20."""
    odds, result = run(GRIT_FLESH, "save", gf_sheet(st=12), [face])
    assert result.outcome == outcome
    assert odds.of("pass") == Fraction(12, 20)


# --- seed 000, Fell (draft) ----------------------------------------------------------------------------


def draft_sheet(bod: int = 8, hp: int = 0, **extra: Any) -> Sheet:
    state = FELL_DRAFT.default_state()
    state["abilities"] = {
        "BOD": {"die": bod, "full_die": bod, "points": bod},
        "INT": {"die": 6, "full_die": 6, "points": 6},
        "WIL": {"die": 6, "full_die": 6, "points": 6},
    }
    state.update(hp=hp, hp_max=max(hp, 4), **extra)
    return Sheet(state=FELL_DRAFT.validate_state(state), items=(), hirelings=(), name="Ana")


@pytest.mark.parametrize(("face", "dying"), [(4, True), (5, False), (6, False)])
def test_fell_draft_critical_harm_test_meeting_its_dn_passes(face, dying):
    """Seed 000, Harm and Death: "roll a test with that ability. The difficulty number is equal to the amount
    of critical harm taken"; Tasks and Tests: "If you meet or exceed the difficulty number, the test passes".
    BOD d8 at 0 HP takes 5 critical harm: DN 5; a 5 stands, a 4 leaves them dying. Exact odds 4/8."""
    odds, result = run(FELL_DRAFT, "take_harm", draft_sheet(), [face], amount=5)
    assert result.state["dying"] is dying and result.details["critical_test"] == ("failed" if dying else "passed")
    assert result.state["abilities"]["BOD"]["points"] == 3
    assert dict(odds.outcomes) == {"standing": Fraction(4, 8), "dying": Fraction(4, 8)}


@pytest.mark.parametrize(("amount", "dying"), [(1, False), (2, True)])
def test_fell_draft_critical_harm_of_1_passes_even_with_no_die_to_roll(amount, dying):
    """Seed 000, Harm and Death (DN = the critical harm) and spec §000.7: DN 1 always passes, so nothing is
    rolled, even when fatigue has shifted BOD d4 off the ladder (Dice Ladder: "you cannot roll it"); at DN 2
    that empty pool fails (spec §000.5.1 [REC])."""
    sh = draft_sheet(bod=4, fatigue=1)
    odds, result = run(FELL_DRAFT, "take_harm", sh, [], amount=amount)
    assert result.state["dying"] is dying and result.dice == ()
    assert odds.of("standing") == (0 if dying else 1)


# --- seed 003, Fortune's Favor -------------------------------------------------------------------------


def ff_sheet(items=(), stamina: int | None = None, **changes: Any) -> Sheet:
    """A level 1 Knight, Mettle 3, Agility 2, Intellect 0, Heart -2, unarmoured, no Fortune's Favor."""
    state = FF.default_state()
    state.update(armour="none", stamina_max_lost=0)
    state["stats"] = {**state["stats"], **changes.pop("stats", {})}
    state.update(changes)
    state["health"] = health_max(state)
    state["stamina"] = stamina_max(state) if stamina is None else stamina
    return Sheet(state=FF.validate_state(state), items=tuple(items), name="Sable")


@pytest.mark.parametrize(
    ("passes", "mixed", "fails", "result"),
    [
        (3, 1, 1, "pass"),  # net 2 Passes, more than 1 Mixed
        (3, 2, 1, "mixed"),  # net 2, equal to the 2 Mixed: not higher
        (3, 3, 1, "mixed"),
        (1, 1, 3, "fail"),
        (1, 2, 3, "mixed"),
        (2, 0, 2, "mixed"),  # Passes and Fails cancel
        (2, 2, 1, "mixed"),  # the seed's own example
        (3, 1, 0, "pass"),  # and its second
    ],
)
def test_ff_group_test_net_equal_to_mixed_is_mixed(passes, mixed, fails, result):
    """Seed 003, Group Tests: "subtract the larger of successes or failures from the other. If that new number
    is higher than the Mixed, that's the result, otherwise the result is Mixed": a net equal to the Mixed
    count is Mixed."""
    assert group_result(passes, mixed, fails) == result
    proc = FF.table_procedures()["group_test"]
    params = {"passes": passes, "mixed": mixed, "fails": fails}
    assert proc.roll(None, params, random.Random(0)).outcome == result
    assert proc.odds(None, params).outcomes == ((result, Fraction(1)),)


def _pushed_agility_odds(success: int, failure: int) -> dict[str, Fraction]:
    """Seed 003, Tests, and 1s and 20s, counted face by face: d20 + Agility 2 + a d6 against S and F."""
    counts = dict.fromkeys(("pass", "mixed", "fail"), 0)
    for d20 in range(1, 21):
        for d6 in range(1, 7):
            total = d20 + 2 + d6
            if d20 == 1:
                counts["fail"] += 1
            elif d20 == 20 or total >= success:
                counts["pass"] += 1
            else:
                counts["mixed" if total >= failure else "fail"] += 1
    return {k: Fraction(n, 120) for k, n in counts.items()}


@pytest.mark.parametrize(
    ("faces", "total", "outcome"), [([7, 5], 14, "mixed"), ([7, 6], 15, "pass"), ([8, 6], 16, "pass")]
)
def test_ff_pushing_your_limits_adds_a_d6(faces, total, outcome):
    """Seed 003, Pushing Your Limits: "spend 3 Stamina to add 1d6 to the roll". Agility 2 against 15/10: a
    d20 of 7 passes only on the d6's 6. The die is a d6 (its 6 is the top face; the odds count six faces),
    and exactly 3 Stamina pays for it."""
    sh = ff_sheet(stamina=3)
    odds, result = run(FF, "test", sh, faces, stat="agility", success=15, failure=10, push=True)
    assert (result.total, result.outcome) == (total, outcome)
    assert [d.sides for d in result.dice] == [20, 6]
    assert result.state["stamina"] == 0
    assert dict(odds.outcomes) == _pushed_agility_odds(15, 10)


@pytest.mark.parametrize(
    ("mettle", "level", "slots"),
    [(-5, 1, 5), (-3, 1, 6), (-2, 1, 6), (-1, 1, 7), (0, 1, 7), (1, 1, 7), (3, 1, 8), (-3, 3, 7), (-1, 2, 8)],
)
def test_ff_half_mettle_rounds_toward_zero(mettle, level, slots):
    """Seed 003, Gear Slots: "7 + half your Mettle (round towards zero) + half your level (rounded down)":
    Mettle -3 adds -1 (not -2), Mettle -1 adds 0 (not -1), Mettle -5 adds -2."""
    assert ff_slots_max(ff_sheet(stats={"mettle": mettle}, level=level).state) == slots


@pytest.mark.parametrize(("carried", "slowed"), [(5, False), (6, False), (7, True)])
def test_ff_odd_negative_mettle_slots_decide_slowed_and_misfortune(carried, slowed):
    """Seed 003, Gear Slots: over the maximum you are Slowed, with Misfortune on Agility tests. Mettle -3 at
    level 1 has 7 + (-1) = 6 slots: carrying 6 is not over; 7 is. Exact odds of Agility 2 against 15/10: a
    plain d20 passes on 13+ (8/20); with Misfortune both d20s must (8/20)^2."""
    sh = ff_sheet(items=[Item("rock", "gear", 1, carried, {}, id=1)], stats={"mettle": -3})
    assert any("Slowed" in words for words in FF.slots(sh).consequences) is slowed
    plain = Fraction(8, 20)
    assert odds_of(FF, "test", sh, stat="agility", success=15, failure=10).of("pass") == (plain**2 if slowed else plain)


# --- seed 002, Chaos & Conquest ------------------------------------------------------------------------


def cc_sheet(stamina: int, stamina_max: int, stress: int = 0) -> Sheet:
    state = CC.default_state()
    state["attributes"] = {a: {"current": 10, "base": 10} for a in ("STR", "DEX", "WIL")}
    state.update(stamina=stamina, stamina_max=stamina_max, stress=stress)
    rations = Item("Rations (7 days)", "ration", 1, 1, {"days": 7}, id=1)
    return Sheet(state=CC.validate_state(state), items=(rations,), hirelings=(), name="Ana")


@pytest.mark.parametrize(("face", "stamina"), [(4, 7), (5, 8), (6, 8), (8, 8)])
def test_cc_nights_rest_regains_a_d8_up_to_the_maximum(face, stamina):
    """Seed 002, Rest & Healing: "After consuming a ration and a full night's rest of two watches, PCs regain
    d8 lost stamina and remove 1 Stress." The die is a d8 (an 8 can come up); stamina 3 of 8 has 5 lost, so a
    5 exactly refills it and more is wasted. Exact odds: +1 to +4 each 1/8, +5 on 5-8 (4/8)."""
    odds, result = run(CC, "rest", cc_sheet(3, 8, stress=1), [face], kind="night")
    assert [d.sides for d in result.dice] == [8]
    assert (result.state["stamina"], result.state["stress"]) == (stamina, 0)
    expected = {f"+{g} stamina": Fraction(1, 8) for g in range(1, 5)} | {"+5 stamina": Fraction(4, 8)}
    assert dict(odds.outcomes) == expected
