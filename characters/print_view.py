"""A sheet on paper: what one printed page of a character holds, with every check's exact chance beside it.

For tables that play in person (issue 40): the numbers of the sheet, and the odds of each roll a player makes from
it at its default inputs, as the sheet's own odds boxes show them (``sheet_view.odds_shown``), at today's gear and
the table's conditions. Built on each request from the stored sheet, never kept: a printed page is as fresh as the
sheet it was printed from. The same builder prints a character never saved (a convention's pregen, from its
system's creation rules and a seed) and the GM's party page (``party_prints``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from characters import table
from characters.models import Character, Hireling, Item
from characters.selectors import Seat, Viewer
from characters.sheet_view import OddsShown, item_rolls, odds_shown
from characters.system_templates import system_template
from rules import SYSTEMS, RulesError, system_for
from rules import base as rules_base
from rules.odds_conditions import condition_label

SEED_MAX = 2**31 - 1  # a pregen's seed, as ?seed= takes it


@dataclass(frozen=True)
class Chance:
    """One printed chance: a roll at these inputs (``inputs``: as the roll form posts them, unprefixed) and its
    odds box. ``by``: what the inputs are called on the line ("BOD", "Sword"); "" for the roll's defaults."""

    procedure: str
    by: str
    inputs: tuple[tuple[str, Any], ...]  # every input as the roll form sends it, its defaults filled in
    shown: OddsShown
    system: str = ""  # whose outcome words it reads in (the party's page may set systems side by side: issue 42)

    @property
    def query(self) -> str:
        """The inputs as the sheet's odds box asks for them (``characters:odds``): prefixed by the roll's key."""
        return urlencode([(f"{self.procedure}-{name}", value) for name, value in self.inputs], doseq=True)


@dataclass(frozen=True)
class Check:
    """One roll of the sheet on paper: its odds at its default inputs, then the same roll by stat or by weapon."""

    key: str
    label: str
    gm_only: bool
    default: Chance
    variants: tuple[Chance, ...] = ()


@dataclass(frozen=True)
class Unrollable:
    """A roll the sheet offers that has no odds at its defaults today, and why ("You know no spells.")."""

    label: str
    reason: str


@dataclass(frozen=True)
class PrintItem:
    item: Item
    slots: int


@dataclass
class PrintSheet:
    """What the printed page of one character shows."""

    character: Character
    viewer: Viewer | None
    rules: Any = None
    state: Mapping[str, Any] | None = None
    tracks: tuple[rules_base.Track, ...] = ()
    conditions: tuple[str, ...] = ()
    banners: tuple[rules_base.Banner, ...] = ()
    facts: Mapping[str, Any] | None = None
    slots: rules_base.SlotSummary | None = None
    coins: str | None = None
    items: list[PrintItem] = field(default_factory=list)
    hirelings: list[tuple[Hireling, str]] = field(default_factory=list)
    system_template: str | None = None
    table: tuple[str, ...] = ()  # the table's conditions in force, in words ("Dark")
    chances: bool = False  # False: this viewer's sheet shows no odds (a peer at the table), nor does the page
    checks: list[Check] = field(default_factory=list)
    unrollable: list[Unrollable] = field(default_factory=list)
    problem: str = ""  # the stored numbers the rules can't read

    def context(self) -> dict[str, Any]:
        """The page's context: the names the system's sheet template reads (sheet.html's "details")."""
        return {
            "printed": self,
            "character": self.character,
            "viewer": self.viewer,
            "state": self.state,
            "facts": self.facts,
            "slots": self.slots,
            "tracks": self.tracks,
            "conditions": self.conditions,
            "system_id": self.character.system,
        }


def character_print(seat: Seat, *, gm_rolls: bool = False) -> PrintSheet:
    """The printed page of a stored character, as this viewer may see it: the odds for its editors (the owner, the
    GM), as the sheet shows them; a peer at the table reads the numbers only, its private fields left out.
    ``gm_rolls``: the GM's rolls of the sheet too (the party page), for the table's GM only."""
    character, viewer = seat.character, seat.viewer
    rules = SYSTEMS.get(character.system)
    printed = PrintSheet(character=character, viewer=_paper_viewer(viewer), chances=viewer.can_edit)
    if rules is None:
        return printed
    items, hirelings = list(character.items.all()), list(character.hirelings.all())
    hidden = () if viewer.can_edit or viewer.is_owner else rules.private_fields
    try:
        state = dict(character.rules_state())
        sheet = rules_base.check_sheet(
            rules,
            rules_base.Sheet(
                state=state,
                items=tuple(i.to_rules() for i in items),
                hirelings=tuple(h.to_rules() for h in hirelings),
                name=character.name,
                settings=character.rule_settings(),
                table=character.table_conditions(),
            ),
        )
    except RulesError as problem:
        printed.problem = f"This sheet holds numbers the rules can't read: {problem}"
        return printed
    return _filled(printed, rules, sheet, items, hirelings, hidden=hidden, gm_rolls=gm_rolls and viewer.is_gm)


def pregen_print(system_id: str, seed: int) -> PrintSheet:
    """A fresh character of ``system_id`` from its creation rules and ``seed``, printed and never saved: the same
    seed prints the same character (RulesError for a system without sheets)."""
    rules = system_for(system_id)
    creation = rules.create({}, random.Random(seed), settings=rules.settings_in_force(None))
    state = rules.validate_state(creation.state)
    character = Character(system=system_id, name=creation.name or "Nameless", state=state)
    character.campaign = None  # away from a table: the system's default settings, no conditions
    items = [
        Item(name=i.name, kind=i.kind, slots=i.slots, quantity=i.quantity, data=dict(i.data), worn=i.worn)
        for i in creation.items
    ]
    sheet = rules_base.check_sheet(rules, character.to_sheet(items=items, hirelings=()))
    printed = PrintSheet(character=character, viewer=None, chances=True)
    return _filled(printed, rules, sheet, items, [], hidden=())


def party_prints(gm, campaign, characters: Iterable[Character]) -> list[PrintSheet]:
    """The printed page of each character at a table, for its GM ``gm`` (the GM's rolls too), read from rows
    loaded with their items and hirelings (prefetched): no query per character. The caller checked the seat."""
    out = []
    for character in characters:
        character.campaign = campaign  # the table's settings and conditions, read without a query
        viewer = Viewer(gm.pk, table.GM, character.owner_id == gm.pk, True, True)
        out.append(character_print(Seat(character, viewer), gm_rolls=True))
    return out


def _paper_viewer(viewer: Viewer) -> Viewer:
    """On paper nothing opens a roll: the sheet's names are words, not links to the roll panel."""
    return Viewer(viewer.user_id, viewer.role, viewer.is_owner, False, viewer.is_gm)


def _filled(
    printed: PrintSheet,
    rules,
    sheet: rules_base.Sheet,
    items: Sequence[Item],
    hirelings: Sequence[Hireling],
    *,
    hidden: tuple[str, ...],
    gm_rolls: bool = False,
) -> PrintSheet:
    state = dict(sheet.state)
    for private in hidden:  # e.g. a secret faction, for a peer
        state.pop(private, None)
    money = rules.money(sheet)
    printed.rules, printed.state = rules, state
    printed.tracks, printed.conditions = rules.tracks(sheet), rules.conditions(sheet)
    printed.banners, printed.facts = rules.banners(sheet), rules.sheet_facts(sheet)
    printed.slots = rules.slots(sheet)
    printed.coins = None if money is None else rules.format_money(money)
    printed.items = [
        PrintItem(row, rules.item_slots(sheet, item)) for row, item in zip(items, sheet.items, strict=True)
    ]
    printed.hirelings = [(row, rules.format_money(row.wage)) for row in hirelings]
    printed.system_template = system_template(printed.character.system, "sheet")
    printed.table = tuple(condition_label(k, v) for k, v in dict(sheet.table).items() if v not in (None, False, ""))
    if printed.chances:
        printed.checks, printed.unrollable = _checks(printed.character, rules, sheet, gm=False)
        if gm_rolls:
            printed.checks += _checks(printed.character, rules, sheet, gm=True)[0]
    return printed


def _checks(character: Character, rules, sheet: rules_base.Sheet, *, gm: bool) -> tuple[list[Check], list[Unrollable]]:
    """Each roll the sheet's Roll part offers (the GM's rolls only with ``gm``), at its default inputs as its odds
    box shows them; then by stat (the system's quick rolls) and by weapon (the items an attack names). A roll no
    dice decide (it is applied as set) is no check; one refused at its defaults is listed with its reason."""
    by_procedure: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for quick in rules.quick_rolls(sheet):
        by_procedure.setdefault(quick.procedure, []).append((quick.label, dict(quick.params)))
    names = {rules_base.entry_key(item, n): item.name for n, item in enumerate(sheet.items)}
    for value, (procedure, name) in item_rolls(rules, sheet).items():
        by_procedure.setdefault(procedure, []).append((names.get(value, value), {name: value}))
    checks, unrollable = [], []
    for procedure in rules.procedures().values():
        if procedure.gm_only != gm or procedure.key in rules_base.BOUGHT_IN_THE_PICKER:
            continue
        shown = odds_shown(character, procedure, sheet, {})
        if shown.error:
            unrollable.append(Unrollable(procedure.label, shown.error))
            continue
        if not _rolled(shown):
            continue
        default = Chance(procedure.key, "", _posted(procedure, sheet, {}), shown, character.system)
        variants = []
        for by, inputs in by_procedure.get(procedure.key, ()):
            posted = _posted(procedure, sheet, inputs)
            if posted == default.inputs:  # the roll's defaults: said on its first line
                default = replace(default, by=default.by or by)
                continue
            varied = odds_shown(character, procedure, sheet, inputs)
            if _rolled(varied):
                variants.append(Chance(procedure.key, by, posted, varied, character.system))
        checks.append(Check(procedure.key, procedure.label, procedure.gm_only, default, tuple(variants)))
    return checks, unrollable


def _rolled(shown: OddsShown) -> bool:
    """Whether dice decide the roll: odds with more than one outcome that can happen."""
    return shown.odds is not None and sum(1 for _, p in shown.odds.outcomes if p > 0) > 1


def _posted(procedure, sheet: rules_base.Sheet, raw: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Every input of the roll at ``raw`` (its defaults for the rest), as its form sends them: a yes ticks the box
    ("on"), a no and an empty choice send nothing, a multiple choice each of its values; an input only the GM
    sets is left to its default, as a player's form leaves it."""
    gm_set = {param.name for param in procedure.params(sheet) if param.gm_only}
    try:
        params = rules_base.check_params(procedure, sheet, raw)
    except RulesError:
        params = dict(raw)
    out: list[tuple[str, Any]] = []
    for name, value in params.items():
        if value is None or value is False or value == "" or name in gm_set:
            continue
        if value is True:
            out.append((name, rules_base.CHECKBOX_ON))
        elif isinstance(value, list | tuple | set | frozenset):
            out.append((name, [str(v) for v in value]))
        else:
            out.append((name, str(value)))
    return tuple(out)


@dataclass(frozen=True)
class PartyRow:
    """One line of the GM's party page: a defence or a chance, each character's beside the others' (None: that
    character has no such number, or no odds for it)."""

    label: str
    by: str = ""  # the inputs' name ("Save STR"): a variant's, or what the roll's defaults amount to
    gm_only: bool = False
    key: str = ""  # a track's key, a roll's
    variant: bool = False  # the roll by stat or weapon, below its defaults
    tracks: tuple[rules_base.Track | None, ...] = ()
    chances: tuple[Chance | None, ...] = ()


def party_rows(prints: Sequence[PrintSheet]) -> tuple[list[PartyRow], list[PartyRow]]:
    """The party page's two tables, one column per character: the defences (every track, in the order the
    sheets list them) and the chances (every roll at its defaults, then by stat or weapon, the GM's last)."""
    track_labels: dict[str, str] = {}
    for printed in prints:
        for track in printed.tracks:
            track_labels.setdefault(track.key, track.label)
    by_key = [{t.key: t for t in printed.tracks} for printed in prints]
    defences = [
        PartyRow(label, key=key, tracks=tuple(held.get(key) for held in by_key)) for key, label in track_labels.items()
    ]
    lines: dict[tuple[str, str, str], PartyRow] = {}
    found: dict[tuple[str, str, str], dict[int, Chance]] = {}
    for n, printed in enumerate(prints):
        for check in printed.checks:
            for chance in (check.default, *check.variants):
                variant = chance is not check.default
                line = (check.key, check.label, chance.by if variant else "")  # a key two systems share, apart
                lines.setdefault(line, PartyRow(check.label, chance.by, check.gm_only, check.key, variant))
                found.setdefault(line, {})[n] = chance
    chances = [
        replace(row, chances=tuple(found[line].get(n) for n in range(len(prints)))) for line, row in lines.items()
    ]
    chances.sort(key=lambda row: row.gm_only)  # the players' rolls first, the GM's after (a stable sort)
    return defences, chances
