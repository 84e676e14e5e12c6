"""What each kind of journal event changes on the table's pages (campaigns/push.py draws and pushes it).

Services record typed events (live.events) in the journal; the renderer reads them and draws, for the pages open in
its process, the table page's regions each event shows in, the sheets' regions it names and the roll log's lines.
"""

from __future__ import annotations

from live import events as ev

# The sheet's own region of the running fight (campaigns/_sheet_fight.html): every PC's open sheet gets it.
SHEET_FIGHT = "fight"
# The sheet's region of the GM's roll requests for that character.
SHEET_REQUESTS = "requests"

# The regions of the table page (campaigns.push.TABLE_REGIONS) each kind of event changes.
TABLE_REGIONS_OF: dict[type[ev.Event], tuple[str, ...]] = {
    ev.ClockMoved: ("clock", "time"),  # the round and the game time
    ev.PartyChanged: ("party", "time", "party-light"),  # a character came, went or moved (its light with it)
    ev.LightChanged: ("time", "party-light"),
    ev.MembersChanged: ("members",),
    ev.FightChanged: ("encounter",),
    ev.RequestAsked: ("requests",),
    ev.RequestAnswered: ("requests",),
    ev.RequestEnded: ("requests",),
    ev.GroupChecked: ("requests",),
    ev.NotesChanged: ("notes",),
    ev.SummaryChanged: ("summary",),
    ev.SessionStarted: ("sessions",),
    ev.SessionEnded: ("sessions",),
    ev.SessionChanged: ("sessions",),
    # issue 41: real time, lights' time, countdowns
    ev.RealtimeChanged: ("clock", "time"),
    ev.LightLow: ("time",),
    ev.LightTimeSet: ("time",),
    ev.CountdownChanged: ("countdowns",),
    ev.CountdownTicked: ("countdowns",),
    ev.StashChanged: ("stash",),  # the party's stash (issue 41)
}
