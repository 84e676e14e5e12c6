"""The contract of ``GameSystem.shared_checks`` (issue 42): every system, Coin Flip included, maps a shared check only
to a roll a player makes, with inputs that roll's own params take on a real sheet of that system."""

from __future__ import annotations

import pytest

import rules
from campaigns.session import requestable
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem
from rules.base import SHARED_CHECKS, check_params
from tests.conftest import make_character
from tests.contract.coin_flip import SYSTEM as COIN_FLIP


@pytest.mark.parametrize("system_id", [*rules.SYSTEMS, "coin-flip"])
def test_each_shared_check_is_a_roll_a_player_makes_with_inputs_its_sheet_takes(system_id, player):
    with rules.registered(COIN_FLIP):
        load_catalogue(CatalogueItem, "coin-flip")
        system = rules.system_for(system_id)
        sheet = make_character(player, None, system=system_id, name="Checker").checked_sheet()
        mapped_any = False
        for check, mapped in system.shared_checks().items():
            assert check in SHARED_CHECKS, (system_id, check)
            proc = requestable(system).get(mapped.procedure)
            assert proc is not None, f"{system_id}: {check} maps to {mapped.procedure!r}, no roll a player makes"
            clean = check_params(proc, sheet, dict(mapped.inputs))
            assert {k: clean[k] for k in mapped.inputs} == dict(mapped.inputs), (system_id, check)
            proc.odds(sheet, clean)  # its odds are worked out at those inputs
            mapped_any = True
        assert mapped_any, f"{system_id} answers no shared check: a mixed table could ask it nothing by name"
