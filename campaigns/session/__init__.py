"""Running a session from the GM's table: roll requests, the encounter tracker, the clock and notes.

Every write here is a service: keyword-only, atomic, announced after commit. What a system does (which
rolls a group result, an NPC's stat block, the order of a round, what time burns) comes from the rules
through ``GameSystem`` members that have defaults, so a system that implements none of them still runs.

One module per feature; the package re-exports their names (``session.request_create(...)``).
"""

from campaigns.services import CampaignError
from campaigns.session.clock import CLOCK_COUNT_MAX, clock_advance, set_daylight
from campaigns.session.common import _lock_campaign, _on_every_sheet, _system, _table_in_order
from campaigns.session.encounters import (
    FIGHT,
    NPCS_MAX,
    STATUS_ROUNDS_MAX,
    FightEnded,
    _active,
    _log_order,
    _npc,
    _publish_fight,
    _store_made,
    _TableRoll,
    clean_npc,
    encounter_end,
    encounter_next_round,
    encounter_start,
    npc_add,
    npc_bring,
    npc_damage,
    npc_remove,
    npc_roll,
    npc_status,
    pc_attack_npcs,
)
from campaigns.session.hits import PcAttacked, hit_undo, pc_attack, target_params, undoable_hits
from campaigns.session.notes import NOTE_MAX, _note_text, note_save, summary_save
from campaigns.session.requests import (
    FIXABLE_KINDS,
    OPEN_REQUESTS_MAX,
    RECENT,
    REQUEST_MINUTES,
    AskedOdds,
    PartyOdds,
    _announce_request,
    _fixed_inputs,
    _shown,
    asked_odds,
    request_answer,
    request_cancel,
    request_create,
    requestable,
)

__all__ = [
    "CampaignError",
    "CLOCK_COUNT_MAX",
    "clock_advance",
    "set_daylight",
    "_lock_campaign",
    "_on_every_sheet",
    "_system",
    "_table_in_order",
    "FIGHT",
    "FightEnded",
    "NPCS_MAX",
    "STATUS_ROUNDS_MAX",
    "_active",
    "_log_order",
    "_npc",
    "_publish_fight",
    "_store_made",
    "_TableRoll",
    "clean_npc",
    "encounter_end",
    "encounter_next_round",
    "encounter_start",
    "npc_add",
    "npc_bring",
    "npc_damage",
    "npc_remove",
    "npc_roll",
    "pc_attack_npcs",
    "npc_status",
    "PcAttacked",
    "hit_undo",
    "pc_attack",
    "target_params",
    "undoable_hits",
    "NOTE_MAX",
    "_note_text",
    "note_save",
    "summary_save",
    "FIXABLE_KINDS",
    "OPEN_REQUESTS_MAX",
    "RECENT",
    "REQUEST_MINUTES",
    "AskedOdds",
    "PartyOdds",
    "asked_odds",
    "_announce_request",
    "_fixed_inputs",
    "_shown",
    "request_answer",
    "request_cancel",
    "request_create",
    "requestable",
]
