"""What a campaign write tells the table's open pages: the topics it changed.

The write names topics (the words its ``TableWritten`` carries back too) in a ``["table", topics]`` part; the
renderer (campaigns/push.py) draws the table page's regions each topic shows in and pushes them to every open
table page: no page re-fetches a region.
"""

from __future__ import annotations

from collections.abc import Iterable

from live import events

# The topic of the sheet's own region of the running fight (campaigns/_sheet_fight.html): every PC's open sheet
# gets it (campaigns.push), the table page none.
SHEET_FIGHT = "fight"

# The regions of the table page (campaigns.push.TABLE_REGIONS) each topic changes.
TOPIC_REGIONS: dict[str, tuple[str, ...]] = {
    "table": ("clock", "time"),  # the round and the game time
    "party": ("party", "time", "party-light"),  # a character came, went or moved (the party's light goes with them)
    "light": ("time", "party-light"),
    "members": ("members",),
    "encounter": ("encounter",),
    "requests": ("requests",),
    "notes": ("notes",),
    "summary": ("summary",),
}


def announce(campaign_id: int | None, *topics: str, audience: Iterable[int] | None = None) -> None:
    """Push the table page's regions these topics name, once the transaction commits."""
    if topics:
        events.push(campaign_id, ["table", list(topics)], audience=audience)


def regions_of(topics: Iterable[str]) -> list[str]:
    """The table page's regions these topics change (an unknown topic changes none)."""
    return list(dict.fromkeys(region for topic in topics for region in TOPIC_REGIONS.get(topic, ())))
