"""Chaos & Conquest at the GM's table: group results of requested rolls, NPCs in the encounter tracker, the
order of a round, and what time does to a sheet (light, food) and to the table (encounter checks).

Seed 002 (Party Saves; Combat; Morale; Time; Light) and spec §002.4.6, §002.5, §002.7.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.base import GroupResult

PASSED = ("pass",)


def group_result(procedure: str, outcomes: Sequence[str]) -> GroupResult | None:
    """Seed 002, Party Saves: everyone asked saves and the best result counts for the group (any success
    passes, spec §002.4.6 [REC]); the party's leader takes a stress for each member who failed."""
    if procedure != "save" or not outcomes:
        return None
    passed = sum(1 for outcome in outcomes if outcome in PASSED)
    failed = len(outcomes) - passed
    if passed:
        summary = f"The party passes: {passed} of {len(outcomes)} succeeded and the best result counts."
    else:
        summary = f"The party fails: none of the {len(outcomes)} succeeded."
    if failed:
        summary += f" As a party save, the leader takes {failed} stress (one for each member who failed)."
    return GroupResult("pass" if passed else "fail", summary)
