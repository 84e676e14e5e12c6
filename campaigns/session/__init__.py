"""Running a session from the GM's table: roll requests, the encounter tracker, the clock and notes.

Every write here is a service: keyword-only, atomic, announced after commit. What a system does (which
rolls a group result, an NPC's stat block, the order of a round, what time burns) comes from the rules
through ``GameSystem`` members that have defaults, so a system that implements none of them still runs.

One module per feature; the package re-exports their names (``session.request_create(...)``).
"""

from campaigns.services import CampaignError
from campaigns.session.clock import CLOCK_COUNT_MAX, clock_advance, set_daylight
from campaigns.session.common import lock_campaign, on_every_sheet, table_in_order, table_system
from campaigns.session.encounters import (
    FIGHT,
    NPCS_MAX,
    STATUS_ROUNDS_MAX,
    FightEnded,
    clean_npc,
    encounter_end,
    encounter_next_round,
    encounter_next_turn,
    encounter_start,
    npc_add,
    npc_bring,
    npc_damage,
    npc_remove,
    npc_roll,
    npc_status,
    pc_attack_npcs,
    publish_fight,
    store_made,
)
from campaigns.session.hits import PcAttacked, hit_undo, pc_attack, target_params, undoable_hits
from campaigns.session.notes import NOTE_MAX, note_save, summary_save
from campaigns.session.realtime import (
    countdown_create,
    countdown_remove,
    countdown_show,
    countdown_tick,
    light_set_time,
    realtime_catch_up,
    realtime_game_seconds,
    realtime_pause,
    realtime_start,
    realtime_tick_all,
)
from campaigns.session.requests import (
    FIXABLE_KINDS,
    OPEN_REQUESTS_MAX,
    RECENT,
    REQUEST_MINUTES,
    AskedOdds,
    PartyOdds,
    asked_odds,
    request_answer,
    request_cancel,
    request_create,
    requestable,
)

__all__ = [
    "CampaignError",
    "countdown_create",
    "countdown_remove",
    "countdown_show",
    "countdown_tick",
    "light_set_time",
    "realtime_catch_up",
    "realtime_game_seconds",
    "realtime_pause",
    "realtime_start",
    "realtime_tick_all",
    "CLOCK_COUNT_MAX",
    "clock_advance",
    "set_daylight",
    "lock_campaign",
    "on_every_sheet",
    "table_system",
    "table_in_order",
    "FIGHT",
    "FightEnded",
    "NPCS_MAX",
    "STATUS_ROUNDS_MAX",
    "publish_fight",
    "store_made",
    "clean_npc",
    "encounter_end",
    "encounter_next_round",
    "encounter_next_turn",
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
    "note_save",
    "summary_save",
    "FIXABLE_KINDS",
    "OPEN_REQUESTS_MAX",
    "RECENT",
    "REQUEST_MINUTES",
    "AskedOdds",
    "PartyOdds",
    "asked_odds",
    "request_answer",
    "request_cancel",
    "request_create",
    "requestable",
]
