"""Hired help on a sheet: hired, updated, dismissed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from characters.models import Hireling
from characters.services.writes import HIRELINGS_CHANGE, STATE_CHANGE, Written, lock, touch
from rules import RulesError, dice, system_for
from rules.dice import RandomSource

# The same for hired help, where the rules set no number (Fortune's Favor's helpers, Chaos & Conquest's porters).
MAX_HIRELINGS = 50


@transaction.atomic
def hireling_hire(
    *, character_id: int, choices: Mapping[str, Any], by: User, rng: RandomSource | None = None
) -> Written:
    character = lock(character_id)
    if character.hirelings.count() >= MAX_HIRELINGS:
        raise RulesError(f"A sheet keeps at most {MAX_HIRELINGS} hirelings: part ways with one first.")
    rules = system_for(character.system)
    hired = rules.validate_hireling(rules.hire(character.to_sheet(), choices, rng or dice.system_random()))
    if hired.upfront:
        character.state = rules.pay(character.checked_sheet(), hired.upfront, f"Hiring {hired.name} up front")
        character.save(update_fields=["state"])
    row = Hireling.objects.create(
        character=character,
        name=(clean_name(hired.name or "") or "Hireling")[:100],
        kind=hired.kind if hired.kind in Hireling.Kind.values else Hireling.Kind.HIRELING,
        state=dict(hired.state),
        state_version=rules.hireling_version,
        wage=max(0, hired.wage),
    )
    regions = HIRELINGS_CHANGE + (STATE_CHANGE if hired.upfront else ())
    return touch(character, tuple(dict.fromkeys(regions)), by=by, what=f"Hired {row.name}").adding(row=row)


@transaction.atomic
def hireling_dismiss(*, character_id: int, hireling_id: int, by: User) -> Written:
    character = lock(character_id)
    row = character.hirelings.filter(pk=hireling_id).first()
    if row is None:
        raise RulesError("That hireling is no longer with this character.")
    name = row.name
    row.delete()
    return touch(character, HIRELINGS_CHANGE, by=by, what=f"Parted ways with {name}", check=False)
