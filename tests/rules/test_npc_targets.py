"""A PC's roll on an NPC (issue 26): the inputs an NPC target sets, and what each system's hits do to it.
Each rule names its seed: 000 Fell (draft), 001 Fell (late), 002 Chaos & Conquest, 003 Fortune's Favor,
004 Grit & Flesh."""

from __future__ import annotations

from rules import SYSTEMS
from rules.base import NpcHit, RollResult
from tests.rules.test_grit_flesh import make_state, roll, sheet, weapon


def _stats(system: str, **changes) -> dict:
    return {**{p.name: p.default for p in SYSTEMS[system].npc_fields()}, **changes}


def test_seed_002_combat_the_npcs_av_comes_off_in_the_attack_and_its_damage_lands_as_it_is():
    """Seed 002 (002_882aafdbf41b7f4b.txt), Combat: damage is the weapon die less the target's AV (a critical
    passes all armour): the NPC's AV is the attack's, and the damage rolled lands unchanged."""
    system = SYSTEMS["chaos-conquest"]
    assert system.npc_target_params("attack", _stats("chaos-conquest", av=2)) == {"target_av": 2, "opponent": None}
    result = RollResult("attack", "Attack", "3 damage", "", details={"hits": [{"damage": 3, "critical": False}]})
    assert system.hits_on_npc(result) == (NpcHit(3, ignore_armour=True),)
    harm = system.npc_damage(_stats("chaos-conquest", stamina=5, av=2), _stats("chaos-conquest"), 3, True)
    assert harm.stats["stamina"] == 2 and harm.dealt == 3
    assert system.hits_on_npc(RollResult("save", "Save", "pass", "")) == ()


def test_seed_000_combat_protection_comes_off_in_the_attack():
    """Seed 000 (000_72fc736675279766.txt), Combat: harm is the highest steel die less protection."""
    system = SYSTEMS["fell-draft"]
    assert system.npc_target_params("attack", _stats("fell-draft", protection=1)) == {
        "target_protection": 1,
        "target": None,
    }
    result = RollResult("attack", "Attack", "4 harm", "", total=4, details={"harm": [4, 2]})
    assert system.hits_on_npc(result) == (NpcHit(4, ignore_armour=True),)  # a blast's first target is the NPC


def test_seed_001_attacks_armour_comes_off_in_the_attack_and_harm_past_hp_is_critical():
    """Seed 001 (001_9a541ab1b0476299.txt), Attacks and Armor; Harm and Death: the harm (armour off already)
    goes to HP, what passes it is critical harm."""
    system = SYSTEMS["fell-late"]
    assert system.npc_target_params("attack", _stats("fell-late", armour=2)) == {"target_armour": 2, "target": None}
    result = RollResult("attack", "Attack", "6_harm", "", total=6)
    assert system.hits_on_npc(result) == (NpcHit(6, ignore_armour=True),)
    harm = system.npc_damage(_stats("fell-late", hp=4, armour=2), _stats("fell-late"), 6, True)
    assert harm.stats["hp"] == 0 and "2 critical harm" in harm.words


def test_seed_003_exchanges_the_npcs_armor_and_counter_decide_and_damage_is_not_reduced():
    """Seed 003 (003_eeb4db86843669ac.txt), Exchanges; Taking Damage: the test is against the target's Armor and
    Counter; a hit's damage comes off Health whole."""
    system = SYSTEMS["fortunes-favor"]
    stats = _stats("fortunes-favor", armor=14, counter=9)
    assert system.npc_target_params("attack", stats) == {"armor": 14, "counter": 9, "target": None}
    assert system.hits_on_npc(RollResult("attack", "Attack", "hit", "", details={"damage": 7})) == (NpcHit(7),)
    assert system.hits_on_npc(RollResult("attack", "Attack", "countered", "")) == ()


def test_seed_004_melee_attacks_each_hit_lands_and_a_critical_goes_to_flesh():
    """Seed 004 (004_ebd0e2535c17253c.txt), Melee Attacks; Grit and Flesh: above the AC and at or under the AV
    hits; exactly the AV is a critical, straight to Flesh; a miss lands nothing."""
    system = SYSTEMS["grit-flesh"]
    assert system.npc_target_params("attack", _stats("grit-flesh", ac=3)) == {"target_ac": 3}
    sh = sheet(state=make_state(av=12), items=[weapon()])
    critical = roll("attack", sh, [12, 4], weapon="1", target_ac=0)
    assert system.hits_on_npc(critical) == (NpcHit(4, ignore_armour=True),)
    hit = roll("attack", sh, [5, 4], weapon="1", target_ac=0)
    assert system.hits_on_npc(hit) == (NpcHit(4),)
    miss = roll("attack", sh, [15], weapon="1", target_ac=0)
    assert system.hits_on_npc(miss) == ()
