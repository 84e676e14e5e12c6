"""Fell (draft): magic. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.base import (
    Hireling,
    Item,
    Odds,
    Param,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    entry_key,
    shown_inputs,
)
from rules.dice import (
    RandomSource,
)
from rules.systems.fell_draft.checks import (
    DIE_CHOICES,
    NO,
    _backlash,
    _build_pool,
    _check_dn,
    _contest_odds,
    _dn_param,
    _helper_lashes,
    _lashes,
    _opponent_pool,
    _pool_params,
    _pool_words,
    _roll_contest,
    _shift_params,
    _test_odds,
)
from rules.systems.fell_draft.harm import apply_harm
from rules.systems.fell_draft.pools import Pool, _roll_pool
from rules.systems.fell_draft.state import _die_of, _st


def _scrolls(sheet: Sheet) -> dict[str, Item]:
    return {
        entry_key(it, i, "i"): it
        for i, it in enumerate(sheet.items)
        if it.kind in ("scroll", "spellbook") or it.name.lower().startswith("scroll")
    }


@dataclass(frozen=True)
class CastProcedure:
    """Seed 000 (Spells): a WIL test with the spell die; backlash when the spell die beats the WIL die."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = _st(sheet)
        spells = tuple((f"spell:{s}", s) for s in state["spells"])
        scrolls = tuple((f"scroll:{k}", f"{it.name} (scroll)") for k, it in _scrolls(sheet).items())
        choices = spells + scrolls or (("", "No spell to cast"),)
        die = state["spell_die"] or _die_of(state, "WIL")
        pool = tuple(p for p in _pool_params(sheet, spell=False) if p.name not in ("steel", "skills"))
        return (
            Param("spell", "Spell", "choice", choices[0][0], choices=choices),
            Param("die", "Spell die", "choice", str(die), choices=DIE_CHOICES, help="Change it as you like."),
            Param(
                "on_backlash",
                "If it backlashes",
                "choice",
                "harm",
                choices=(
                    ("harm", "take the harm"),
                    ("forget", "forget the spell instead"),
                    ("scroll", "let the scroll be destroyed instead"),
                ),
            ),
            *pool,
            *_shift_params(),
            _dn_param(),
            Param("target", "Unwilling target (a character)", "character", help="They may force a contest."),
            Param("target_die", "Unwilling NPC's die", "choice", "", choices=(NO, *DIE_CHOICES)),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, Pool | None]:
        if not p["spell"]:
            raise RulesError("You know no spells and carry no scrolls.")
        kind, _, name = p["spell"].partition(":")
        if p["on_backlash"] == "forget" and kind != "spell":
            raise RulesError("A scroll's spell is not yours to forget; let the scroll go instead.")
        if p["on_backlash"] == "scroll" and kind != "scroll":
            raise RulesError("That spell is not cast from a scroll.")
        pool = _build_pool(sheet, p, ability="WIL", spell_die=int(p["die"]))
        if isinstance(p.get("target"), Sheet):  # spec §000.5.5 [REC]: caster WIL + spell die vs their WIL
            resist = dict(p, opponent=p["target"], opponent_ability="WIL", opponent_extra="", opponent_shift=0)
            return pool, _opponent_pool(resist)
        if p.get("target_die"):
            return pool, _opponent_pool({"npc_die": p["target_die"]})
        return pool, None

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        pool, resist = self._setup(sheet, p)
        if resist is not None:
            return _contest_odds(pool, resist, sheet)
        return _test_odds(pool, _check_dn(p["dn"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        dn = _check_dn(p["dn"])
        pool, resist = self._setup(sheet, p)
        kind, _, ref = p["spell"].partition(":")
        name = ref if kind == "spell" else _scrolls(sheet)[ref].name
        state = _st(sheet)
        hired: tuple[Hireling, ...] = ()
        others: dict[str, Any] = {}
        if resist is not None:
            base = _roll_contest(self, sheet, p, pool, resist, rng, on_backlash=p["on_backlash"])
            dice, best, outcome, odds = base.dice, base.total or 0, base.outcome, base.odds
            summary, details = f"Casting {name}: {base.summary}", dict(base.details)
            lash = int(details.get("backlash", 0))
            hired, others = base.hirelings_changed, dict(base.other_states)
            if base.state is not None:
                state = dict(base.state)
        else:
            odds = _test_odds(pool, dn)
            dice, best = _roll_pool(rng, pool)
            passed = bool(dice) and best >= dn
            outcome = "pass" if passed else "fail"
            summary = f"Casting {name} with {_pool_words(pool)}: best {best} against DN {dn}, "
            summary += "the spell works." if passed else "it goes wrong."
            details = {"dn": dn, "best": best, "net_shift": pool.net}
            lash = _backlash(pool, dice)
            rolled = dice
            if _lashes(pool, dice):
                outcome += "_backlash"
        removed: tuple[int, ...] = ()
        if lash:
            details["backlash"] = lash
            if p["on_backlash"] == "forget":
                state["spells"] = [s for s in state["spells"] if s != name]
                summary += f" Backlash {lash}: instead of harm, {name} is forgotten for good."
            elif p["on_backlash"] == "scroll":
                scroll = _scrolls(sheet)[ref]
                removed = (scroll.id,) if scroll.id is not None else ()
                details["scroll_destroyed"] = scroll.name
                summary += f" Backlash {lash}: instead of harm, the scroll crumbles away."
            elif resist is None:
                harm = apply_harm(sheet, lash, "WIL", rng)
                state = harm.state
                dice += harm.dice
                summary += f" Backlash {lash}: {harm.summary}"
        if resist is None:  # then whoever lent a spell die takes its backlash
            more, words, lent, others, hired = _helper_lashes(sheet, p, pool, rolled, rng)
            dice, summary = dice + more, summary + words
            details.update(lent)
        if state["spell_die"] != int(p["die"]):
            state["spell_die"] = int(p["die"])
        changed = state != _st(sheet)
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            best,
            odds,
            shown_inputs(p),
            state if changed else None,
            details,
            items_removed=removed,
            hirelings_changed=hired,
            other_states=others,
        )
