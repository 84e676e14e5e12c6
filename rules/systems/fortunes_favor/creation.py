"""Fortune's Favor: making a character (seed 003, Building a Character; rules-spec §003.2-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import Creation, Item, Param, RollResult, RulesError
from rules.data import fortunes_favor as data
from rules.dice import DieRoll, RandomSource, roll_die
from rules.systems.fortunes_favor.state import (
    STAT_NAMES,
    STATS,
    _default_state,
    health_max,
    stamina_max,
    validate_state,
)

NAMES = ("Sable", "Orrin", "Tamsin", "Bryn", "Ilse", "Corwin", "Maelis", "Dara", "Fenn", "Yara", "Hale", "Wren")
ARRAY_CHOICES = (("", "—"), *((str(v), f"{v:+d}") for v in data.STAT_ARRAY))


def _pick(rng: RandomSource, options: Sequence[str], label: str, dice: list[DieRoll]) -> str:
    die = roll_die(rng, len(options), label)
    dice.append(die)
    return options[die.face - 1]


def _chosen(choices: Mapping[str, Any], key: str, allowed: Sequence[str], label: str) -> str | None:
    value = choices.get(key)
    if value in (None, ""):
        return None
    if str(value) not in allowed:
        raise RulesError(f"{label}: {str(value)[:40]} is not one of the choices.")
    return str(value)


def _stats(choices: Mapping[str, Any], rng: RandomSource, dice: list[DieRoll]) -> dict[str, int]:
    """Seed 003, Stats: assign 3, 2, 0 and −2; any left empty take the values left, in a rolled order."""
    given: dict[str, int] = {}
    for key in STATS:
        raw = choices.get(key)
        if raw in (None, ""):
            continue
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise RulesError(f"{STAT_NAMES[key]} must be one of 3, 2, 0 or −2.") from None
        if value > data.STAT_MAX:
            raise RulesError(f"{STAT_NAMES[key]} cannot start above {data.STAT_MAX}: assign 3, 2, 0 or −2.")
        if value not in data.STAT_ARRAY:
            raise RulesError(f"{STAT_NAMES[key]} must be one of 3, 2, 0 or −2.")
        given[key] = value
    left = list(data.STAT_ARRAY)
    for value in given.values():
        if value not in left:
            raise RulesError(f"Each of 3, 2, 0 and −2 goes to one stat only ({value:+d} is used twice).")
        left.remove(value)
    out = dict(given)
    for key in STATS:
        if key not in out:
            value = int(_pick(rng, [str(v) for v in left], f"{STAT_NAMES[key]}", dice))
            left.remove(value)
            out[key] = value
    return out


def create(choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None) -> Creation:
    """A level 1 character: class, lineage, culture, stats from the array plus +1 and +1 on two different
    stats, novice feature(s), languages, 5 Coin and the starting kit. Whatever is not chosen is rolled."""
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    dice: list[DieRoll] = []
    rolled: list[str] = []
    name = str(choices.get("name") or "").strip()[:100]
    cls_key = _chosen(choices, "class", tuple(data.CLASSES), "Class") or _pick(rng, tuple(data.CLASSES), "class", dice)
    cls = data.CLASSES[cls_key]
    lin_key = _chosen(choices, "lineage", tuple(data.LINEAGES), "Lineage") or _pick(
        rng, tuple(data.LINEAGES), "lineage", dice
    )
    lineage = data.LINEAGES[lin_key]
    cul_key = _chosen(choices, "culture", tuple(data.CULTURES), "Culture") or _pick(
        rng, tuple(data.CULTURES), "culture", dice
    )
    culture = data.CULTURES[cul_key]
    stats = _stats(choices, rng, dice)
    lin_bonus = _chosen(choices, "lineage_bonus", STATS, "Lineage bonus")
    cul_bonus = _chosen(choices, "culture_bonus", STATS, "Culture bonus")
    if lin_bonus and lin_bonus not in lineage["bonus"]:
        names = " or ".join(STAT_NAMES[s] for s in lineage["bonus"])
        raise RulesError(f"A {lineage['name']}'s +1 goes to {names}, not {STAT_NAMES[lin_bonus]}.")
    if cul_bonus and cul_bonus not in culture["bonus"]:
        names = " or ".join(STAT_NAMES[s] for s in culture["bonus"])
        raise RulesError(f"{culture['name']}' +1 goes to {names}, not {STAT_NAMES[cul_bonus]}.")
    if lin_bonus and cul_bonus and lin_bonus == cul_bonus:
        raise RulesError(
            f"The lineage and culture bonuses cannot both go to {STAT_NAMES[lin_bonus]}: pick two different stats."
        )
    if not lin_bonus:
        options = [s for s in lineage["bonus"] if s != cul_bonus]
        if not options:
            raise RulesError(
                f"A {lineage['name']}'s +1 goes to {STAT_NAMES[cul_bonus or 'mettle']}: put the culture's elsewhere."
            )
        lin_bonus = _pick(rng, options, "lineage bonus", dice)
    if not cul_bonus:
        options = [s for s in culture["bonus"] if s != lin_bonus]
        cul_bonus = _pick(rng, options, "culture bonus", dice)
    stats[lin_bonus] += 1
    stats[cul_bonus] += 1
    attack = _chosen(choices, "attack_stat", cls["attack_stats"], f"A {cls['name']}'s attack stat")
    if attack is None:
        attack = max(cls["attack_stats"], key=lambda s: (stats[s], -STATS.index(s)))
    size = _chosen(choices, "size", lineage["sizes"], f"A {lineage['name']}'s size") or lineage["sizes"][0]
    novice_count = 2 if lin_key == "HUMAN" else 1  # Human, Adaptable: one more novice feature at level 1
    features: list[str] = []
    for n, key in enumerate(("novice", "novice_2")[:novice_count]):
        pick = _chosen(choices, key, tuple(data.NOVICE_FEATURES), "Novice feature")
        if pick is None:
            pick = _pick(rng, [f for f in data.NOVICE_FEATURES if f not in features], f"novice feature {n + 1}", dice)
        if pick in features:
            raise RulesError(f"{pick} is already chosen: pick two different novice features.")
        features.append(pick)
    if lin_key != "HUMAN" and choices.get("novice_2"):
        raise RulesError("Only a Human picks a second novice feature at level 1.")
    animal: list[str] = []
    if lin_key == "CHIMERIC":
        for n, key in enumerate(("animal", "animal_2")):
            pick = _chosen(choices, key, tuple(data.ANIMAL_FEATURES), "Animal feature")
            if pick is None:
                pick = _pick(rng, [f for f in data.ANIMAL_FEATURES if f not in animal], f"animal feature {n + 1}", dice)
            if pick in animal:
                raise RulesError(f"{pick} is already chosen: pick two different animal features.")
            animal.append(pick)
    elif choices.get("animal") or choices.get("animal_2"):
        raise RulesError("Only a Chimeric has animal features.")
    element = ""
    if cls_key == "ELEMENTALIST":
        element = _chosen(choices, "element", data.ELEMENTS, "Element") or _pick(rng, data.ELEMENTS, "element", dice)
    languages = list(culture["languages"])
    extra_languages = (1 if culture["choose_language"] else 0) + (1 if "Linguist" in features else 0)
    wanted = _chosen(choices, "language", data.LANGUAGES, "Language")
    for n in range(extra_languages):
        options = [lang for lang in data.LANGUAGES if lang not in languages]
        pick = wanted if (n == 0 and wanted and wanted not in languages) else None
        languages.append(pick or _pick(rng, options, "language", dice))
    armour = _chosen(choices, "armour", tuple(data.ARMOUR), "Armour") or (
        cls["armour"][-1] if cls["armour"] else "none"
    )
    if armour != "none" and armour not in cls["armour"]:
        trained = ", ".join(cls["armour"]) or "no armour at all"
        raise RulesError(f"A {cls['name']} is not trained in {armour} armour (trained: {trained}).")
    shield = _chosen(choices, "shield", tuple(data.SHIELDS), "Shield") or "none"
    if shield != "none" and shield not in cls["shields"]:
        raise RulesError(f"A {cls['name']} is not trained with a {shield} shield.")
    if not name:
        name = _pick(rng, NAMES, "name", dice)
        rolled.append(f"name {name}")
    state = {
        **_default_state(),
        "class": cls_key,
        "lineage": lin_key,
        "culture": cul_key,
        "size": size,
        "stats": stats,
        "attack_stat": attack,
        "novice_features": features,
        "animal_features": animal,
        "element": element,
        "languages": languages,
        "armour": armour,
        "shield": shield,
        "coins": data.STARTING_COIN,
    }
    state["health"] = health_max(state)
    state["stamina"] = stamina_max(state)
    state = validate_state(state)
    items = tuple(
        Item(name=n if kind != "weapon" else _weapon_name(cls), kind=kind, slots=slots)
        for n, kind, slots in data.STARTING_KIT
    )
    summary = (
        f"{cls['name']}, {lineage['name']}, {culture['name']}: "
        + ", ".join(f"{STAT_NAMES[k]} {stats[k]:+d}" for k in STATS)
        + f"; {', '.join(features)}."
    )
    rolls = (RollResult("create", "Creation", "created", summary, tuple(dice)),) if dice else ()
    return Creation(name, state, items, rolls)


def _weapon_name(cls: Mapping[str, Any]) -> str:
    return "Spell focus" if "magic" in cls["training"] and "melee" not in cls["training"] else "Class weapons"


def creation_params() -> tuple[Param, ...]:
    """The creation form: every choice may be left empty to be rolled."""
    stat_choices = (("", "Roll"), *((s, STAT_NAMES[s]) for s in STATS))

    def pick(options: Mapping[str, Any] | Sequence[str], label_of: Any = None) -> tuple[tuple[str, str], ...]:
        keys = list(options)
        return (("", "Roll"), *((k, label_of(k) if label_of else k) for k in keys))

    return (
        Param("name", "Name", "text", "", help="Leave empty for a rolled name."),
        Param("class", "Class", "choice", "", choices=pick(data.CLASSES, lambda k: data.CLASSES[k]["name"])),
        Param("lineage", "Lineage", "choice", "", choices=pick(data.LINEAGES, lambda k: data.LINEAGES[k]["name"])),
        Param("culture", "Culture", "choice", "", choices=pick(data.CULTURES, lambda k: data.CULTURES[k]["name"])),
        *(
            Param(s, STAT_NAMES[s], "choice", "", choices=ARRAY_CHOICES, help="Assign 3, 2, 0 and −2 once each.")
            for s in STATS
        ),
        Param("lineage_bonus", "Lineage +1", "choice", "", choices=stat_choices),
        Param("culture_bonus", "Culture +1", "choice", "", choices=stat_choices, help="Not the lineage's stat."),
        Param(
            "attack_stat",
            "Attack stat (Brawler, Spellsword)",
            "choice",
            "",
            choices=(("", "The better one"), ("mettle", "Mettle"), ("agility", "Agility")),
        ),
        Param("novice", "Novice feature", "choice", "", choices=pick(data.NOVICE_FEATURES)),
        Param("novice_2", "Second novice feature (Human)", "choice", "", choices=pick(data.NOVICE_FEATURES)),
        Param("animal", "Animal feature (Chimeric)", "choice", "", choices=pick(data.ANIMAL_FEATURES)),
        Param("animal_2", "Second animal feature (Chimeric)", "choice", "", choices=pick(data.ANIMAL_FEATURES)),
        Param(
            "size",
            "Size (Chimeric)",
            "choice",
            "",
            choices=(("", "The lineage's"), ("small", "Small"), ("medium", "Medium"), ("large", "Large")),
        ),
        Param("element", "Element (Elementalist)", "choice", "", choices=pick(data.ELEMENTS)),
        Param("language", "Language of your choice", "choice", "", choices=pick(data.LANGUAGES)),
        Param(
            "armour",
            "Armour",
            "choice",
            "",
            choices=(("", "The heaviest you are trained in"), *((k, v[0]) for k, v in data.ARMOUR.items())),
        ),
        Param(
            "shield",
            "Shield",
            "choice",
            "",
            choices=(("", "None"), *((k, v[0]) for k, v in data.SHIELDS.items() if k != "none")),
        ),
    )
