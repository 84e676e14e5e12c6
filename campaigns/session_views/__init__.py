"""The GM's table for a whole session: roll requests, encounters, the clock, notes. HTTP only.

A write shows any service's refusal (``Refusal``: the rules', the campaign's, the roll cap's) in the region it
was made from; one that escapes still gets its sentence and a 4xx (core.refusals).

One module per feature; the package re-exports the views urls name. What each region draws is built in
campaigns.session_view.
"""

from campaigns.session_views.clock import (
    countdown_new,
    countdown_remove,
    countdown_show,
    countdown_tick,
    countdowns_region,
    light_time,
    realtime_pause,
    realtime_start,
    time_advance,
    time_daylight,
    time_region,
)
from campaigns.session_views.encounters import (
    ENCOUNTER_ACTIONS,
    NPC_ACTIONS,
    encounter_action,
    encounter_region,
    hit_undo,
    npc_action,
)
from campaigns.session_views.notes import note_save, notes_region, summary_region, summary_save
from campaigns.session_views.play import (
    chronicle,
    chronicle_summary,
    line_add,
    line_edit,
    line_remove,
    session_end,
    session_start,
    sessions,
    sessions_region,
)
from campaigns.session_views.requests import (
    request_answer,
    request_answer_odds,
    request_cancel,
    request_close,
    request_fields,
    request_new,
    request_odds,
    request_roll_for,
    request_skip,
    request_what_if,
    requests_region,
    sheet_fight,
    sheet_fight_context,
    sheet_requests,
    sheet_requests_context,
)

__all__ = [
    "chronicle",
    "chronicle_summary",
    "line_add",
    "line_edit",
    "line_remove",
    "session_end",
    "session_start",
    "sessions",
    "sessions_region",
    "countdown_new",
    "countdown_remove",
    "countdown_show",
    "countdown_tick",
    "countdowns_region",
    "light_time",
    "realtime_pause",
    "realtime_start",
    "time_advance",
    "time_daylight",
    "time_region",
    "ENCOUNTER_ACTIONS",
    "NPC_ACTIONS",
    "encounter_action",
    "encounter_region",
    "npc_action",
    "hit_undo",
    "note_save",
    "notes_region",
    "summary_region",
    "summary_save",
    "request_answer",
    "request_cancel",
    "request_fields",
    "request_new",
    "request_answer_odds",
    "request_odds",
    "request_close",
    "request_roll_for",
    "request_skip",
    "request_what_if",
    "requests_region",
    "sheet_fight",
    "sheet_fight_context",
    "sheet_requests",
    "sheet_requests_context",
]
