"""The table characters tells and asks (characters.table), as campaigns answers: registered at startup
(campaigns.signals). The sheet side lives with the table's conditions (campaigns.conditions); the fight side here,
where a sheet's roll meets the running fight's NPCs (campaigns.session.hits)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User

from campaigns import stash
from campaigns.conditions import SheetsAtTheTable
from campaigns.session import hits
from characters.models import Character


class TheTable(SheetsAtTheTable):
    def target_params(self, character: Character, procedure: str, npc_id: int, params: Mapping[str, Any]) -> Any:
        return hits.target_params(character, procedure, npc_id, params)

    def attack_npc(self, *, npc_id: int, **roll: Any) -> Any:
        return hits.pc_attack(**roll, npc_id=npc_id).row.written

    def void_roll(self, *, roll_id: int, by: User, reason: str) -> tuple[Any, list[str]]:
        return hits.roll_void(roll_id=roll_id, by=by, reason=reason)

    def revert_change(self, **change: Any) -> tuple[Any, list[str]]:
        if stash.is_stash_move(change["change_id"]):  # a move between the sheet and the stash: both sides back
            return stash.move_revert(**change)
        return hits.change_revert(**change)

    def void_preview(self, roll: Any) -> list[str]:
        return hits.void_preview(roll)

    def stash_move(self, *, kind: str, character_id: int, by: User, payload: Mapping[str, Any]) -> Any:
        return stash.offline_move(kind=kind, character_id=character_id, by=by, payload=payload)
