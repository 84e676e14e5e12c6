"""What travels between the live table's processes, and the hub's constants its transports share
(live.hub fans signals out; live.transport carries them between processes)."""

from __future__ import annotations

from typing import Any

INT4_MAX = 2**31 - 1  # advisory lock keys are int4
MAX_PRESENCE_USERS = 300  # named in one presence notification (NOTIFY carries at most 8,000 bytes)

Key = tuple[int, int]  # (campaign_id, user_id)


def presence_signal(campaign_id: int, users: set[int]) -> dict[str, Any]:
    """Who arrived at or left a table: their ids, unless too many for a notification (then the whole list)."""
    signal: dict[str, Any] = {"campaign": campaign_id, "topic": "presence"}
    if len(users) <= MAX_PRESENCE_USERS:
        signal["users"] = sorted(users)
    return signal
