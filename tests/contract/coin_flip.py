"""Coin Flip: a game system that exists only in the tests (issue 10).

It is registered for a test with ``rules.registered(SYSTEM)`` and has no template, no template tag and no
line in ``characters/`` or ``campaigns/``: if it plays, renders a sheet and a table card and passes the
contract suite, then docs/adding-a-system.md tells the truth. It is the smallest whole system: every member it
writes is a required one of ``rules.base.GameSystem`` (the core ``SheetRules``, ``Economy``'s ``coin_label`` and
``catalogue``, ``HiredHelp``'s ``hire``) or one the contract suite exercises (``private_fields``, ``rule_settings``,
``creation_params``, ``hireling_limit``, ``combat_order``: whose turn, heads or tails; ``shared_checks``: a flip);
everything else, the whole of ``Presentation`` and ``FightRules`` included, is the capabilities' defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from rules.base import (
    BOTH,
    ENEMIES,
    PARTY,
    SHARED_CHECKS,
    CatalogueEntry,
    CheckAsked,
    CombatOrder,
    Creation,
    GameSystem,
    Hireling,
    Item,
    Odds,
    Param,
    RollResult,
    Sheet,
    SlotSummary,
    Track,
)
from rules.dice import DieRoll, RandomSource, roll_die
from rules.errors import RulesError
from rules.settings import Setting
from rules.validation import boolean, item_basics

SLOTS, HARD_LIMIT = 5, 10
STATE_KEYS = {"luck", "luck_max", "coins", "secret"}


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"{what} must be a whole number from {low} to {high}.")
    return value


class Flip:
    key, label, gm_only = "flip", "Flip a coin", False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("call", "Call", "choice", "heads", choices=(("heads", "Heads"), ("tails", "Tails"))),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        if sheet.settings.get("coin") == "two-headed":  # the campaign's rule setting
            win = Fraction(1) if params["call"] == "heads" else Fraction(0)
            return Odds((("win", win), ("lose", 1 - win)), success_keys=("win",))
        return Odds((("win", Fraction(1, 2)), ("lose", Fraction(1, 2))), success_keys=("win",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        die = roll_die(rng, 2, "coin")
        if sheet.settings.get("coin") == "two-headed":
            die = DieRoll(2, 1, label="coin")
        won = (die.face == 1) == (params["call"] == "heads")
        luck = max(0, min(sheet.state["luck_max"], sheet.state["luck"] + (1 if won else -1)))
        outcome = "win" if won else "lose"
        return RollResult(
            procedure=self.key,
            label=self.label,
            outcome=outcome,
            summary=f"{'Heads' if die.face == 1 else 'Tails'}: a {outcome}.",
            dice=(die,),
            odds=self.odds(sheet, params),
            inputs=dict(params),
            state={**sheet.state, "luck": luck},
        )


class Search:
    key, label, gm_only = "search", "Search the road", False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return Odds((("found", Fraction(1)),), success_keys=("found",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        # Finds something heavy: a roll is one more way to reach the carry limit.
        return RollResult(
            procedure=self.key,
            label=self.label,
            outcome="found",
            summary="A boulder, of all things.",
            odds=self.odds(sheet, params),
            items_added=(Item("Boulder", "gear", slots=3),),
        )


PROCEDURES = {"flip": Flip(), "search": Search()}


class CoinFlip(GameSystem):
    id = "coin-flip"
    name = "Coin Flip"
    coin_label = "coin"

    def rule_settings(self) -> tuple[Setting, ...]:
        return (
            Setting(
                "coin",
                "The coin",
                "fair",
                "A two-headed coin always lands heads.",
                choices=(("fair", "Fair"), ("two-headed", "Two-headed")),
            ),
            Setting(
                "start_luck",
                "Starting luck",
                3,
                "Luck a new flipper starts with.",
                kind="int",
                minimum=0,
                maximum=6,
                house_default=True,
                scope="creation",
            ),
            Setting("calls", "Calls", ["heads", "tails"], "What a flipper may call.", kind="list", min_items=1),
        )

    private_fields = ("secret",)

    def default_state(self) -> dict[str, Any]:
        return {"luck": 3, "luck_max": 10, "coins": 10, "secret": ""}

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(state, Mapping):
            raise RulesError("A Coin Flip sheet is a set of named numbers.")
        unknown = sorted(set(state) - STATE_KEYS)
        if unknown:
            raise RulesError(f"A Coin Flip sheet has no {', '.join(unknown)}.")
        merged = {**self.default_state(), **state}
        luck_max = _whole(merged["luck_max"], "Most luck", 1, 10)
        secret = merged["secret"]
        if not isinstance(secret, str) or len(secret) > 100:
            raise RulesError("The secret is a short text.")
        return {
            "luck": _whole(merged["luck"], "Luck", 0, luck_max),
            "luck_max": luck_max,
            "coins": _whole(merged["coins"], "Coins", 0, 1_000_000),
            "secret": secret,
        }

    def validate_item(self, item: Item) -> Item:
        # The bounds every system shares (rules.validation), then the system's own: here, no numbers at all.
        name, kind, slots, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
        if item.data:
            raise RulesError(f"{name}: Coin Flip items have no numbers of their own.")
        worn = boolean(item.worn, f"{name}: worn")
        return replace(item, name=name, kind=kind, slots=slots, quantity=quantity, worn=worn)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        unknown = sorted(set(hireling.state) - {"loyal"})
        if unknown or not isinstance(hireling.state.get("loyal", True), bool):
            raise RulesError(f"{hireling.name}: a sidekick is loyal or not, nothing else.")
        return hireling

    def creation_params(self) -> tuple[Param, ...]:
        return (Param("name", "Name", "text", ""),)

    def create(
        self, choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None
    ) -> Creation:
        luck = roll_die(rng, 6, "luck")
        state = self.validate_state({"luck": luck.face, "coins": 10})
        name = str(choices.get("name") or "Flipper")
        items = (Item("Coin purse", "gear", slots=1),)
        return Creation(name=name, state=state, items=items)

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        return (Track("luck", "Luck", sheet.state["luck"], sheet.state["luck_max"]),)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        if key != "luck":
            raise RulesError(f"Coin Flip sheets have no {key}.")
        luck = max(0, min(sheet.state["luck_max"], sheet.state["luck"] + delta))
        return {**sheet.state, "luck": luck}

    def slots(self, sheet: Sheet) -> SlotSummary:
        used = sum(item.slots * item.quantity for item in sheet.items)
        notes = ("Over five slots: you walk slowly.",) if used > SLOTS else ()
        return SlotSummary(used, SLOTS, HARD_LIMIT, notes)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        return ("Unlucky",) if sheet.state["luck"] == 0 else ()

    def procedures(self) -> Mapping[str, Flip | Search]:
        return PROCEDURES

    def shared_checks(self) -> Mapping[str, CheckAsked]:
        """Every shared check at a mixed table is a coin's flip here: the coin decides everything (issue 42)."""
        return {check: CheckAsked("flip") for check in SHARED_CHECKS}

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return (
            CatalogueEntry("Lucky charm", "gear", 5, slots=1, group="Trinkets"),
            CatalogueEntry("Anvil", "gear", 1, slots=6, group="Junk"),
        )

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        """A coin each round: heads, the flippers act first, then the others; tails, both sides at once."""
        coin = roll_die(rng, 2, "order")
        if coin.face == 1:
            steps = ("The flippers act", "The others act")
            return CombatOrder(steps, f"Round {round_number}: heads.", (coin,), (PARTY, ENEMIES))
        return CombatOrder(("Everyone acts at once",), f"Round {round_number}: tails.", (coin,), (BOTH,))

    def hireling_limit(self, sheet: Sheet) -> int:
        return 1

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        if len(sheet.hirelings) >= 1:
            raise RulesError("One sidekick is all a coin-flipper can keep.")
        return Hireling(name=str(choices.get("name") or "Sidekick"), state={"loyal": True}, upfront=2)


SYSTEM = CoinFlip()
