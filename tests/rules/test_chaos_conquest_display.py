"""Chaos & Conquest's display facts (seed 002_882aafdbf41b7f4b.txt): banners, sheet facts, the GM's table facts and
the table's morale roll, all worked out from rules sheets alone (no template tag, no database)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rules.systems.chaos_conquest as cc
from rules.base import Banner, Item, Procedure, RulesError, Sheet, check_params
from rules.dice import ScriptedRandom
from rules.systems.chaos_conquest import SYSTEM
from tests.rules.test_chaos_conquest import HELMET, LONGSWORD, MAIL, SHIELD, SUPPLY, junk, pc, sheet, weapon

# --- banners ------------------------------------------------------------------------------------


def keys(s: Sheet) -> list[str]:
    return [b.key for b in SYSTEM.banners(s)]


def test_a_fine_character_shows_no_banner_seed_002_stamina_and_death():
    """Seed 002, Stamina & Death: "fine" is no news; the sheet shows nothing above the numbers."""
    assert SYSTEM.banners(sheet(pc())) == ()


@pytest.mark.parametrize(("doomed", "words"), [(False, "It kills on 1–3."), (True, "It kills on 1–5 (Doomed).")])
def test_deaths_door_banner_says_what_the_d6_kills_on_seed_002_stamina_and_death(doomed, words):
    """Seed 002, Stamina & Death: on Death's door roll a d6; 1-3 kills, 1-5 when Doomed."""
    banners = SYSTEM.banners(sheet(pc(stamina=0, status="deaths_door", doomed=doomed)))
    first = banners[0]
    assert isinstance(first, Banner)
    assert (first.key, first.title, first.tone) == ("deaths_door", "On Death's door", "bad")
    assert first.text.endswith(words)
    assert [b.key for b in banners] == (["deaths_door", "doomed"] if doomed else ["deaths_door"])


def test_doomed_banner_warns_of_one_to_five_seed_002_scars():
    """Seed 002, scar 6 (Doomed): the next time on Death's door the d6 kills on 1-5."""
    (banner,) = SYSTEM.banners(sheet(pc(doomed=True)))
    assert (banner.key, banner.title, banner.tone) == ("doomed", "Doomed", "warning")
    assert "1–5" in banner.text


def test_dying_banner_asks_for_treatment_within_a_turn_seed_002_stamina_and_death():
    """Seed 002, Stamina & Death: unconscious and dying until treated within a turn; more damage kills."""
    (banner,) = SYSTEM.banners(sheet(pc(stamina=0, status="dying")))
    assert (banner.key, banner.title, banner.tone) == ("dying", "Unconscious and dying", "bad")
    assert "within a turn" in banner.text


def test_level_ready_banner_at_the_next_levels_xp_seed_002_advancement():
    """Seed 002, Advancement: at 2,000 XP a level 1 character may level up (to level 2)."""
    assert keys(sheet(pc(xp=1999))) == []
    (banner,) = SYSTEM.banners(sheet(pc(xp=2000)))
    assert (banner.key, banner.tone) == ("level-ready", "good") and "Level 2" in banner.text


def test_the_dead_show_only_that_they_are_dead_seed_002_stamina_and_death():
    """Seed 002, Stamina & Death: a dead character is neither doomed nor levelling any more."""
    banners = SYSTEM.banners(sheet(pc(stamina=0, status="dead", doomed=True, xp=5000)))
    assert [(b.key, b.title) for b in banners] == [("dead", "Dead")]


def test_banners_order_status_doomed_then_level_seed_002():
    """Seed 002 (Stamina & Death; Advancement): the most urgent line first."""
    assert keys(sheet(pc(stamina=0, status="dying", doomed=True, xp=2000))) == ["dying", "doomed", "level-ready"]


# --- sheet facts --------------------------------------------------------------------------------


def test_sheet_facts_numbers_come_from_the_rules_seed_002_attributes_and_advancement():
    """Seed 002 (Attributes; Advancement; Damage & Armor): the derived numbers the sheet shows."""
    state = pc(14, 12, 9, xp=1500, coins=543)
    state["attributes"]["STR"]["current"] = 10  # poisoned: back to 14 after a full rest
    s = sheet(state, [MAIL, HELMET, SHIELD, SUPPLY, LONGSWORD, weapon("Pistol", 6, bonus=1, ranged=True)])
    facts = SYSTEM.sheet_facts(s)
    assert facts["status"] == "fine" and facts["status_word"] == "Fine"
    assert [(a["key"], a["current"], a["base"], a["lowered"]) for a in facts["attributes"]] == [
        ("STR", 10, 14, True),
        ("DEX", 12, 12, False),
        ("WIL", 9, 9, False),
    ]
    assert facts["attributes"][2]["help"] == "magic, charisma, mental endurance"
    assert (facts["next_level"], facts["next_xp"], facts["xp_to_go"], facts["level_ready"]) == (2, 2000, 500, False)
    assert facts["armour"] == cc.armour_summary(s)
    assert facts["armour"]["shield"] == "Shield" and facts["armour"]["supplies"] == 2
    assert facts["weapons"] == [
        {"name": "Longsword", "die": 10, "bonus": None, "worn_out": False, "silver": False, "ranged": False},
        {"name": "Pistol", "die": 6, "bonus": 1, "worn_out": False, "silver": False, "ranged": True},
    ]
    assert facts["money"] == "2m 5s 3p"  # equipment.md, Currency: 1 m = 20 s = 240 p


def test_sheet_facts_ledger_is_newest_first_ten_at_most_with_money_seed_002_rewarding_xp():
    """Seed 002, Rewarding XP (1 XP a penny): the ledger's ten newest entries, each also written as money."""
    ledger = [{"kind": "treasure", "amount": 240 * n, "note": f"haul {n}"} for n in range(1, 13)]
    facts = SYSTEM.sheet_facts(sheet(pc(xp=sum(e["amount"] for e in ledger), xp_ledger=ledger)))
    assert [e["note"] for e in facts["ledger"]] == [f"haul {n}" for n in range(12, 2, -1)]
    assert facts["ledger"][0] == {"kind": "treasure", "amount": 2880, "note": "haul 12", "money": "12m"}
    assert facts["ledger_more"] == 2
    assert SYSTEM.sheet_facts(sheet(pc()))["ledger"] == [] and SYSTEM.sheet_facts(sheet(pc()))["ledger_more"] == 0


def test_slot_boxes_fill_items_stress_coins_marks_then_empty_seed_002_inventory_and_stress():
    """Seed 002, Inventory & Stress (10 slots at STR 10; stress fills slots) and equipment.md, Currency (500 coins
    ride free, then a slot per 1,000) and the mishap marks (aura, tumours) that fill slots."""
    state = pc(stress=2, aura=True, tumours=1, coins=600 * 240)  # 600 marks: 600 coins, one slot
    s = sheet(state, [LONGSWORD, HELMET])
    boxes = SYSTEM.sheet_facts(s)["boxes"]
    assert [b["kind"] for b in boxes] == ["item"] * 4 + ["stress"] * 2 + ["coins"] + ["mark"] * 2 + ["empty"]
    assert [b["label"] for b in boxes[:4]] == ["Longsword"] * 3 + ["Helmet"]
    assert [b["label"] for b in boxes[7:9]] == ["Magic aura", "Tumour"]
    assert len(boxes) == SYSTEM.slots(s).maximum == 10 and not any("over" in b for b in boxes)


def test_slot_boxes_past_the_last_slot_say_over_seed_002_inventory_and_stress():
    """Seed 002, Inventory & Stress: more than your slots is over-encumbered; a huge stack shows only 30 more."""
    boxes = SYSTEM.sheet_facts(sheet(pc(), junk(12)))["boxes"]
    assert [b.get("over") for b in boxes] == [None] * 10 + ["yes"] * 2
    heap = Item("Sand", "gear", 1, 200_000, {}, id=1)
    assert len(SYSTEM.sheet_facts(sheet(pc(), [heap]))["boxes"]) == 10 + 30


def test_sheet_facts_refuse_a_broken_state_seed_002():
    """Seed 002: a sheet the rules cannot read gives a sentence (RulesError), never made-up numbers."""
    with pytest.raises(RulesError):
        SYSTEM.sheet_facts(Sheet(state={"status": "resting"}))


# --- table facts --------------------------------------------------------------------------------


def party_of(n: int) -> list[tuple[int, Sheet]]:
    return [(10 + i, sheet(pc(dex=8 + i), name=f"PC{i}")) for i in range(n)]


def test_table_facts_offer_each_character_as_party_save_leader_seed_002_party_saves():
    """Seed 002, Party Saves: a leader and the others (six at most besides the leader) as member1... params."""
    party = party_of(8)
    table = SYSTEM.table_facts(party)
    assert [g["leader"] for g in table["groups"]] == [{"id": 10 + i, "name": f"PC{i}"} for i in range(8)]
    first = table["groups"][0]
    assert first["members"] == [{"param": f"member{n}", "id": 10 + n, "name": f"PC{n}"} for n in range(1, 7)]
    assert first["left_out"] == ["PC7"]
    members = {f"member{n}": party[n][1] for n in range(1, 7)}
    assert first["odds"] == cc.PROCEDURES["party_save"].odds(party[0][1], members)
    assert table["groups"][7]["left_out"] == ["PC6"]


def test_table_facts_leave_out_unreadable_sheets_and_show_no_odds_for_a_dying_leader_seed_002_party_saves():
    """Seed 002, Party Saves and Stamina & Death: the dying cannot lead a save; a broken sheet joins nothing."""
    broken = Sheet(state={"status": "resting"}, name="Broken")
    dying = sheet(pc(stamina=0, status="dying"), name="Dying")
    table = SYSTEM.table_facts([(1, sheet(name="Ana")), (2, broken), (3, dying)])
    assert [g["leader"]["name"] for g in table["groups"]] == ["Ana", "Dying"]
    assert [m["name"] for m in table["groups"][0]["members"]] == ["Dying"]
    assert table["groups"][0]["odds"] is not None and table["groups"][1]["odds"] is None


def test_table_facts_alone_and_empty_seed_002_party_saves():
    """Seed 002, Party Saves: alone at the table the leader saves alone; nobody at all means no groups."""
    (group,) = SYSTEM.table_facts([(1, sheet())])["groups"]
    assert group["members"] == [] and group["left_out"] == [] and group["odds"].success == Fraction(1, 2)
    assert SYSTEM.table_facts([])["groups"] == []


def test_table_facts_morale_odds_at_the_default_ml_seed_002_morale():
    """Seed 002, Morale: 2d6 above ML 7 flees: 15/36 = 5/12."""
    odds = SYSTEM.table_facts([])["morale_odds"]
    assert odds.of("flee") == Fraction(5, 12) and odds.of("hold") == Fraction(7, 12)


# --- the table's morale roll --------------------------------------------------------------------


def test_the_table_morale_roll_needs_no_sheet_seed_002_morale():
    """Seed 002, Morale: the NPCs' 2d6 against their ML is the GM's roll, made for no character."""
    morale = SYSTEM.table_procedures()["morale"]
    # Morale, and the travel procedures of spec §002.7 (tests/rules/test_chaos_conquest_table.py).
    expected = {"morale", "travel", "explore", "forage", "encounter_check", "day_on_the_road"}
    assert isinstance(morale, Procedure) and morale.gm_only and set(SYSTEM.table_procedures()) == expected
    (param,) = morale.params(None)
    assert (param.name, param.default, param.minimum, param.maximum) == ("morale", 7, 2, 12)
    assert morale.odds(None, {"morale": 9}).of("flee") == Fraction(6, 36)  # 10, 11, 12: 3 + 2 + 1 ways
    result = morale.roll(None, {"morale": "9"}, ScriptedRandom([5, 5]))
    assert (result.outcome, result.total, result.inputs) == ("flee", 10, {"morale": 9})
    assert result.state is None and "they flee or try to parley" in result.summary
    assert morale.roll(None, {}, ScriptedRandom([3, 4])).outcome == "hold"  # 7 against the default ML 7


@pytest.mark.parametrize("given", [{"morale": 13}, {"morale": 1}, {"morale": "brave"}, {"skill": 3}])
def test_the_table_morale_roll_refuses_nonsense_seed_002_morale(given):
    """Seed 002, Morale: ML is a 2d6 target from 2 to 12; anything else is a sentence, not a roll."""
    morale = SYSTEM.table_procedures()["morale"]
    with pytest.raises(RulesError):
        morale.odds(None, given)
    with pytest.raises(RulesError):
        morale.roll(None, given, ScriptedRandom([1, 1]))


@pytest.mark.parametrize("ml", range(2, 13))
def test_the_table_and_sheet_morale_rolls_agree_seed_002_morale(ml):
    """Seed 002, Morale: from the table or from a sheet, the same dice give the same result."""
    table, on_sheet = SYSTEM.table_procedures()["morale"], SYSTEM.procedures()["morale"]
    assert table.odds(None, {"morale": ml}) == on_sheet.odds(sheet(), {"morale": ml})
    a = table.roll(None, {"morale": ml}, ScriptedRandom([4, 3]))
    b = on_sheet.roll(sheet(), {"morale": ml}, ScriptedRandom([4, 3]))
    assert a == b
    assert check_params(table, sheet(), {"morale": ml}) == {"morale": ml}
