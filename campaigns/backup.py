"""A whole campaign as one JSON file (the GM's backup), and such a file back as a new campaign on any Lantern.

The file holds what the GM's own table shows: the characters at the table with their gear, hirelings and notes,
the NPCs (saved and in the running fight), the clock, the rule settings, the summary, the GM's notes, and the
roll log as the GM reads it (public, GM-only and blind rolls, the GM's own private ones; never a player's
private roll). Importing checks everything with the same validation as the pages and the character import
before writing anything, and makes a new campaign run by the importer, who holds its characters until the
players make their own or take theirs back as character files. Open roll requests and each sheet's history of
changes stay behind: a request expires within the session, and a history's undo needs the rows it points at.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from accounts.names import clean_name
from campaigns.conditions import refresh_conditions
from campaigns.models import Campaign, Encounter, GmNote, Membership, Npc
from campaigns.services import CLOCK_LIMIT, CampaignError, campaign_create
from campaigns.session.encounters import NPCS_MAX, STATUS_ROUNDS_MAX, clean_npc
from characters.models import Character, Roll
from characters.selectors import rolls_at_table
from characters.services.sheet import MAX_CHARACTERS, MAX_SEATS
from characters.transfer import (
    CheckedCharacter,
    check_character,
    export_character,
    file_list,
    file_mapping,
    read_json,
    save_character,
)
from rules import RulesError, system_for
from rules.dice import MAX_DICE, MAX_SIDES

FORMAT = "lantern-campaign"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 8 * 1024 * 1024
# Values in one file: 50 characters of a few thousand values each, 5,000 log lines of about 20, with room.
MAX_NODES = 600_000
ROLLS_KEPT = 5_000  # the newest lines of the roll log a backup keeps
NOTE_MAX = 5_000  # GmNote.text and Campaign.summary
WORDS_MAX = 300  # an encounter's order summary, a hit's words, an NPC's prompt
ROLL_TEXT = {"label": 200, "procedure": 60, "outcome": 60, "summary": 500, "void_reason": 200}
# A log line's dice, inputs and odds, as the app writes them (rules.dice.DieRoll.as_dict, the roll's inputs as
# rules.base.shown_inputs keeps them, characters.services.rolls.odds_as_json), with room.
DIE_KEYS = ("sides", "face", "kept", "label")
INPUTS_MAX = 60  # inputs of one roll, and values in one input's list
INPUT_TEXT = 300
INPUT_NUMBER = 10**9
ODDS_MAX = 20  # outcomes of one roll
FRACTION = re.compile(r"[0-9]{1,40}/[1-9][0-9]{0,39}")


def export_campaign(campaign: Campaign, gm) -> dict[str, Any]:
    """The campaign as its GM sees it, as one document (see the module's docstring for what it holds)."""
    characters = list(campaign.characters.order_by("pk").select_related("owner").prefetch_related("items", "hirelings"))
    index = {character.pk: n for n, character in enumerate(characters)}
    notes = {note.character_id: note.text for note in GmNote.objects.filter(campaign=campaign)}
    fight = campaign.encounters.filter(active=True).first()
    npcs = campaign.npcs.filter(Q(encounter__isnull=True) | Q(encounter=fight)).order_by("pk")
    rolls = rolls_at_table(gm, campaign.pk, Membership.Role.GM).select_related("roller").order_by("-created_at", "-pk")
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "system": campaign.system,
        "also_systems": list(campaign.systems[1:]),
        "name": campaign.name,
        "table": {
            "round": campaign.round,
            "game_minutes": campaign.game_minutes,
            "game_seconds": campaign.game_seconds,
            "rule_settings": campaign.rule_settings,
            "other_rule_settings": {system: campaign.stored_settings(system) for system in campaign.systems[1:]},
            "daylight": campaign.daylight,
            "hand_dice": campaign.hand_dice,
            "summary": campaign.summary,
            "clock_note": campaign.clock_note,
        },
        "gm_note": notes.get(None, ""),
        "characters": [
            {
                **_character_fields(export_character(character)),
                "player": character.owner.username,
                "gm_note": notes.get(character.pk, ""),
            }
            for character in characters
        ],
        "npcs": [
            {
                "name": npc.name,
                "system": npc.system_of(campaign),
                "stats": npc.stats,
                "start": npc.start,
                "statuses": npc.statuses,
                "defeated": npc.defeated,
                "prompt": npc.prompt,
                "in_fight": npc.encounter_id is not None,
            }
            for npc in npcs
        ],
        "fight": None
        if fight is None
        else {
            "name": fight.name,
            "round": fight.round,
            "order": fight.order,
            "order_summary": fight.order_summary,
            "hits": {str(index[int(pk)]): words for pk, words in fight.hits.items() if int(pk) in index},
        },
        "rolls": [_roll_row(roll, index) for roll in rolls[:ROLLS_KEPT]],
    }


def _character_fields(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in ("format", "format_version")}


def _roll_row(roll: Roll, index: dict[int, int]) -> dict[str, Any]:
    return {
        "character": index.get(roll.character_id) if roll.character_id is not None else None,
        "by": roll.roller.username if roll.roller is not None else "",
        "label": roll.label,
        "procedure": roll.procedure,
        "inputs": roll.inputs,
        "dice": roll.dice,
        "outcome": roll.outcome,
        "summary": roll.summary,
        "total": roll.total,
        "odds": roll.odds,
        "visibility": roll.visibility,
        "by_hand": roll.by_hand,
        "undone": roll.undone,
        "revision": roll.revision,
        "voided_at": roll.voided_at.isoformat() if roll.voided_at else None,
        "void_reason": roll.void_reason,
        "at": roll.created_at.isoformat(),
    }


def parse_backup(raw: bytes) -> dict[str, Any]:
    """The file as a campaign document, or RulesError with the sentence to show."""
    if len(raw) > MAX_FILE_BYTES:
        raise RulesError(
            f"That file is too large to be a Lantern campaign ({MAX_FILE_BYTES // 1024 // 1024} MB at most)."
        )
    document = read_json(raw, what="campaign", most=MAX_NODES)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RulesError("That file is not a Lantern campaign backup.")
    if document.get("format_version") != FORMAT_VERSION:
        raise RulesError(
            f"That campaign file is format {document.get('format_version')!r}; "
            f"this Lantern reads format {FORMAT_VERSION}."
        )
    return document


# --- import ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CheckedCampaign:
    name: str
    system: str
    table: dict[str, Any]
    gm_note: str
    characters: list[tuple[CheckedCharacter, str]]  # with the GM's note on each
    npcs: list[dict[str, Any]]
    fight: dict[str, Any] | None
    rolls: list[dict[str, Any]]
    also: list[str] = field(default_factory=list)  # the other systems a mixed table welcomes


@transaction.atomic
def import_campaign(*, gm, document: dict[str, Any]) -> Campaign:
    """A new campaign run by ``gm`` from a backup: everything is checked before anything is written, and a file
    that fails anywhere creates nothing (CampaignError or RulesError with the sentence to show)."""
    checked = _check(document)
    owned = Character.objects.filter(owner=gm).count()
    if owned + len(checked.characters) > MAX_CHARACTERS:
        raise RulesError(
            f"That campaign brings {len(checked.characters)} characters and you have {owned}: "
            f"an account keeps at most {MAX_CHARACTERS}."
        )
    campaign = campaign_create(name=checked.name, system=checked.system, also=checked.also, gm=gm)
    for name, value in checked.table.items():
        setattr(campaign, name, value)
    campaign.save()
    characters = [
        save_character(character, owner=gm, campaign=campaign, what="Imported with a campaign backup")
        for character, _ in checked.characters
    ]
    notes = [GmNote(campaign=campaign, text=checked.gm_note)] if checked.gm_note else []
    notes += [
        GmNote(campaign=campaign, character=character, text=note)
        for character, (_, note) in zip(characters, checked.characters, strict=True)
        if note
    ]
    GmNote.objects.bulk_create(notes)
    fight = None
    if checked.fight is not None:
        fields = {key: value for key, value in checked.fight.items() if key != "hits"}
        hits = {str(characters[n].pk): words for n, words in checked.fight["hits"].items()}
        fight = Encounter.objects.create(campaign=campaign, hits=hits, **fields)
    Npc.objects.bulk_create(
        Npc(
            campaign=campaign,
            encounter=fight if npc["in_fight"] else None,
            **{key: value for key, value in npc.items() if key != "in_fight"},
        )
        for npc in checked.npcs
    )
    _save_rolls(campaign, gm, characters, checked.rolls)
    refresh_conditions(campaign.pk)
    return campaign


def _save_rolls(campaign: Campaign, gm, characters: list[Character], rows: list[dict[str, Any]]) -> None:
    """The log as it was, oldest first; every line's roller is the importer, who holds every character now."""
    made = Roll.objects.bulk_create(
        Roll(
            campaign=campaign,
            character=None if row["character"] is None else characters[row["character"]],
            roller=gm,
            voided_by=gm if row["voided_at"] is not None else None,
            **{key: value for key, value in row.items() if key not in ("character", "at")},
        )
        for row in reversed(rows)
    )
    # created_at is set on insert (auto_now_add): the log's own times are written after.
    for roll, row in zip(made, reversed(rows), strict=True):
        roll.created_at = row["at"]
    Roll.objects.bulk_update(made, ["created_at"], batch_size=500)


def _check(document: dict[str, Any]) -> _CheckedCampaign:
    system_id = str(document.get("system", ""))
    system = system_for(system_id)
    name = clean_name(_text(document.get("name"), "campaign's name", 100))
    if not name:
        raise RulesError("The campaign in that file has no name.")
    also = [system_for(str(key)).id for key in file_list(document.get("also_systems", []), "systems", 16)]
    characters_in = file_list(document.get("characters"), "characters", MAX_SEATS, holder="a campaign")
    characters = []
    for n, row in enumerate(characters_in):
        row = file_mapping(row, f"character {n + 1}")
        if row.get("system") not in (system_id, *also):
            raise RulesError(f"Character {n + 1} in that file is not of a system the campaign plays.")
        characters.append((check_character(row), _text(row.get("gm_note", ""), "GM's note", NOTE_MAX)))
    npcs = file_list(document.get("npcs"), "NPCs", 2 * NPCS_MAX, holder="a campaign")
    checked_npcs = [_npc(system, row, also) for row in npcs]
    if sum(1 for npc in checked_npcs if not npc["in_fight"]) > NPCS_MAX or (
        sum(1 for npc in checked_npcs if npc["in_fight"]) > NPCS_MAX
    ):
        raise RulesError(f"A saved list or a fight holds {NPCS_MAX} NPCs at most.")
    fight = None if document.get("fight") is None else _fight(document["fight"], len(characters))
    if fight is None and any(npc["in_fight"] for npc in checked_npcs):
        raise RulesError("The file puts NPCs in a fight it does not hold.")
    rolls = [
        _roll(row, len(characters))
        for row in file_list(document.get("rolls"), "roll log lines", ROLLS_KEPT, holder="a campaign")
    ]
    return _CheckedCampaign(
        name=name,
        system=system.id,
        also=also,
        table=_table(system, file_mapping(document.get("table"), "table"), also),
        gm_note=_text(document.get("gm_note", ""), "GM's note", NOTE_MAX),
        characters=characters,
        npcs=checked_npcs,
        fight=fight,
        rolls=rolls,
    )


def _table(system, table: dict[str, Any], also: list[str]) -> dict[str, Any]:
    settings = system.validate_settings(file_mapping(table.get("rule_settings", {}), "rule settings"))
    defaults = system.settings_in_force(None)
    others = file_mapping(table.get("other_rule_settings", {}), "other systems' rule settings")
    other_settings = {}
    for key in also:
        other = system_for(key)
        checked = other.validate_settings(file_mapping(others.get(key, {}), "rule settings"))
        own_defaults = other.settings_in_force(None)
        other_settings[key] = {name: value for name, value in checked.items() if value != own_defaults[name]}
    hand_dice = table.get("hand_dice", Campaign.HandDice.SERVER)
    if hand_dice not in Campaign.HandDice.values:
        raise RulesError("The file's choice of who rolls the dice is not one Lantern knows.")
    seconds = _whole(table.get("game_seconds", 0), "clock's seconds", 59)
    return {
        "round": _whole(table.get("round", 0), "combat round", CLOCK_LIMIT),
        "game_minutes": _whole(table.get("game_minutes", 0), "clock", CLOCK_LIMIT),
        "game_seconds": seconds,
        "rule_settings": {key: value for key, value in settings.items() if value != defaults[key]},
        "other_rule_settings": other_settings,
        "daylight": _flag(table.get("daylight", True), "daylight"),
        "hand_dice": hand_dice,
        "summary": _text(table.get("summary", ""), "summary", NOTE_MAX),
        "clock_note": _text(table.get("clock_note", ""), "clock's note", 1000),
    }


def _npc(home, row, also: list[str]) -> dict[str, Any]:
    """One NPC of the file, its stat block checked by its own system's rules (its "system": one the campaign
    plays; a file from before mixed tables has none, the home system's)."""
    row = file_mapping(row, "NPCs")
    key = str(row.get("system") or home.id)
    if key != home.id and key not in also:
        raise RulesError("An NPC in that file is not of a system the campaign plays.")
    system = home if key == home.id else system_for(key)
    try:
        name, stats = clean_npc(system, row.get("name", ""), file_mapping(row.get("stats"), "NPC's numbers"))
        _, start = clean_npc(system, name, file_mapping(row.get("start", row.get("stats")), "NPC's numbers"))
    except CampaignError as problem:
        raise RulesError(str(problem)) from None
    statuses = []
    for status in file_list(row.get("statuses"), f"{name}'s statuses", 20, holder="a campaign"):
        status = file_mapping(status, f"{name}'s statuses")
        statuses.append(
            {
                "name": clean_name(_text(status.get("name"), "status", 60)) or "Status",
                "rounds": _whole(status.get("rounds"), "status's rounds", STATUS_ROUNDS_MAX),
            }
        )
    return {
        "name": name,
        "system": "" if key == home.id else key,
        "stats": stats,
        "start": start,
        "statuses": statuses,
        "defeated": _flag(row.get("defeated", False), "defeated"),
        "prompt": _text(row.get("prompt", ""), "NPC's prompt", WORDS_MAX),
        "in_fight": _flag(row.get("in_fight", False), "in the fight"),
    }


def _fight(row, characters: int) -> dict[str, Any]:
    row = file_mapping(row, "fight")
    order = [
        _text(step, "fight's order", WORDS_MAX)
        for step in file_list(row.get("order"), "fight's steps", 50, holder="a campaign")
    ]
    hits = {}
    for key, words in file_mapping(row.get("hits", {}), "fight's hits").items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < characters):
            raise RulesError("The fight in that file names a character it does not hold.")
        hits[int(key)] = _text(words, "fight's hits", WORDS_MAX)
    return {
        "name": clean_name(_text(row.get("name"), "fight's name", 100)) or "Fight",
        "round": max(1, _whole(row.get("round", 1), "fight's round", CLOCK_LIMIT)),
        "order": order,
        "order_summary": _text(row.get("order_summary", ""), "fight's order", WORDS_MAX),
        "hits": hits,
    }


def _roll(row, characters: int) -> dict[str, Any]:
    row = file_mapping(row, "roll log")
    character = row.get("character")
    if character is not None and not (isinstance(character, int) and 0 <= character < characters):
        raise RulesError("A line of the roll log names a character the file does not hold.")
    if row.get("visibility") not in Roll.Visibility.values:
        raise RulesError("A line of the roll log has a visibility Lantern does not know.")
    total = row.get("total")
    if total is not None and not (isinstance(total, int) and -CLOCK_LIMIT <= total <= CLOCK_LIMIT):
        raise RulesError("A line of the roll log has a total out of range.")
    texts = {key: _text(row.get(key, ""), "roll log", most) for key, most in ROLL_TEXT.items()}
    return {
        "character": character,
        **texts,
        "inputs": _inputs(row.get("inputs", {})),
        "dice": [_die(die) for die in file_list(row.get("dice"), "roll's dice", 2 * MAX_DICE, holder="a log line")],
        "odds": _odds(row.get("odds", {})),
        "total": total,
        "visibility": row["visibility"],
        "by_hand": _flag(row.get("by_hand", False), "rolled by hand"),
        "undone": _flag(row.get("undone", False), "undone"),
        "revision": _whole(row.get("revision", 0), "roll's revision", CLOCK_LIMIT),
        "voided_at": None if row.get("voided_at") is None else _time(row["voided_at"]),
        "at": _time(row.get("at")),
    }


def _die(value) -> dict[str, Any]:
    """One die of a log line: its sides and face are whole numbers the log draws as such, its label a short text."""
    die = file_mapping(value, "roll's dice")
    if set(die) - set(DIE_KEYS):
        raise RulesError("A die in the roll log holds more than its sides, face, label and whether it was kept.")
    return {
        "sides": _whole(die.get("sides"), "roll log's die sides", MAX_SIDES),
        "face": _whole(die.get("face"), "roll log's die face", MAX_SIDES),
        "kept": _flag(die.get("kept", True), "roll log's mark of a kept die"),
        "label": _text(die.get("label", ""), "roll log's die label", 60),
    }


def _inputs(value) -> dict[str, Any]:
    """A log line's inputs: names to a yes/no, a number, a short text, or a list of those (a pick of words)."""
    inputs = _named(value, "inputs", INPUTS_MAX)
    for given in inputs.values():
        for item in (
            file_list(given, "roll's inputs", INPUTS_MAX, holder="an input") if isinstance(given, list) else [given]
        ):
            _plain(item)
    return inputs


def _named(value, what: str, most: int) -> dict[str, Any]:
    """A log line's object of short names (its inputs, its odds' outcomes), at most ``most`` of them."""
    named = file_mapping(value, f"roll's {what}")
    if len(named) > most:
        raise RulesError(f"A line of the roll log has {len(named):,} {what}; at most {most}.")
    for name in named:
        _text(name, f"roll's {what}", 60)
    return named


def _plain(value) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int) and -INPUT_NUMBER <= value <= INPUT_NUMBER:
        return
    if isinstance(value, float) and math.isfinite(value) and abs(value) <= INPUT_NUMBER:
        return
    if isinstance(value, str):
        _text(value, "roll's inputs", INPUT_TEXT)
        return
    raise RulesError("A line of the roll log has an input that is not a number, a word or yes or no.")


def _odds(value) -> dict[str, str]:
    """A log line's odds: each outcome's exact chance as a fraction ("3/4")."""
    odds = _named(value, "odds", ODDS_MAX)
    if not all(isinstance(chance, str) and FRACTION.fullmatch(chance) for chance in odds.values()):
        raise RulesError("A line of the roll log has odds that are not fractions such as 3/4.")
    return odds


def _text(value, what: str, most: int) -> str:
    if not isinstance(value, str):
        raise RulesError(f"The file's {what} is damaged.")
    if len(value) > most:
        raise RulesError(f"The file's {what} is {len(value):,} characters long; at most {most:,}.")
    return value


def _whole(value, what: str, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise RulesError(f"The file's {what} is not a whole number from 0 to {most:,}.")
    return value


def _flag(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"The file's {what} is not yes or no.")
    return value


def _time(value) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise RulesError("A line of the roll log has no readable time.")
    return moment
