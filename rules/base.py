"""What every game system offers Lantern, as plain data and one protocol.

The Django apps only ever talk to a system through these types, so a new system is a new
module in ``rules/systems/`` and its tests, and nothing else changes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Protocol, TypeVar, runtime_checkable

from rules.dice import DieRoll, RandomSource
from rules.errors import RulesError
from rules.settings import Setting, in_force, validated
from rules.upgrades import StateUpgrade, upgrade
from rules.validation import TEXT_MAX

# What a ticked checkbox (no value attribute, as every yes/no input Lantern draws) sends; an unticked one
# sends nothing, which the app reads as no. A yes/no input takes a real bool or that word, nothing else:
# reading any other text as yes once made a posted "False" tick the box (issue 23).
CHECKBOX_ON = "on"


@dataclass(frozen=True)
class Track:
    """A resource shown on the sheet and the table card (HP, stress, Stamina...)."""

    key: str
    label: str
    current: int
    maximum: int | None = None
    minimum: int = 0
    adjustable: bool = True  # a person may change it with +/- buttons

    @property
    def shown(self) -> int:
        """The value a person reads: never below 0 (a state may count harm past zero; nobody has -18 stamina)."""
        return max(0, self.current)


@dataclass(frozen=True)
class Item:
    """One inventory row, system-neutral; ``data`` holds the system's own numbers."""

    name: str
    kind: str = "gear"  # weapon, armour, shield, gear, ration, light, ammo, treasure, coins, animal, ...
    slots: int = 1
    quantity: int = 1
    data: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"damage": 6, "bulky": True, "armour": 1}
    worn: bool = False
    id: int | None = None


@dataclass(frozen=True)
class Lights:
    """How one system's light sources burn (rules.clock): ``life(item)`` in game minutes (None: not a light that
    burns) and ``refills(item)`` (True: it goes dark rather than being used up, like a lantern out of oil)."""

    life: Callable[[Item], int | None]
    refills: Callable[[Item], bool]


@dataclass(frozen=True)
class Hireling:
    """A hireling, retainer or helper: a small sheet of its own owned by a character."""

    name: str
    kind: str = "hireling"
    state: Mapping[str, Any] = field(default_factory=dict)
    wage: int = 0  # per day, in the system's smallest coin
    id: int | None = None
    upfront: int = 0  # paid once when hired, in the smallest coin; the app deducts it from state["coins"]


@dataclass(frozen=True)
class LootShare:
    """What a hireling takes when the party's coin is split (HiredHelp.loot_share): ``weight`` of one PC's full
    share (1: an equal share; 1/2: half a share), less ``less`` of the smallest coin (fees it was paid up front),
    never below nothing. ``rule``: where the rules say so, in a few words."""

    weight: Fraction
    less: int = 0
    rule: str = ""


@dataclass(frozen=True)
class Sheet:
    """Everything a rules function may read about one character."""

    state: Mapping[str, Any]
    items: tuple[Item, ...] = ()
    hirelings: tuple[Hireling, ...] = ()
    name: str = ""
    # The campaign's rule settings in force (GameSystem.settings_in_force): every key, defaults filled in.
    # Empty for a sheet built outside a campaign's context; read them with GameSystem.setting(sheet, key).
    settings: Mapping[str, Any] = field(default_factory=dict)
    # The table's conditions now (GameSystem.table_conditions of the whole party, e.g. {"light": "darkness"}),
    # kept by the app on the campaign and given to every sheet at that table, so a rule about the party's
    # situation (C&C darkness: saves at disadvantage) applies on its own. Empty away from a table.
    table: Mapping[str, Any] = field(default_factory=dict)

    def with_state(self, state: Mapping[str, Any], items: tuple[Item, ...] | None = None) -> Sheet:
        """The same character with a new state (and, if given, new items): how rules look one step ahead."""
        return replace(self, state=state, items=self.items if items is None else items)


@dataclass(frozen=True)
class SlotSummary:
    used: int
    maximum: int
    hard_limit: int | None = None  # beyond this nothing more can be carried
    consequences: tuple[str, ...] = ()  # human sentences, e.g. "Over your slots: disadvantage on every test."


@dataclass(frozen=True)
class Param:
    """One input a procedure takes: drives both the form and validation."""

    name: str
    label: str
    # "character": the id of another character at the table; the app resolves it to a Sheet
    # (with its state, items and hirelings) before calling odds()/roll(), so rules stay pure.
    kind: Literal["int", "bool", "choice", "multichoice", "text", "character"] = "int"
    default: Any = None
    minimum: int | None = None  # "text": the fewest characters (1: it may not be left empty)
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()  # (value, label)
    help: str = ""
    gm_only: bool = False
    resets: bool = False  # it costs something (a push): the form unticks it after each roll
    # (another input's name, its values): the input matters only while that one holds one of them, so the form
    # shows it only then (a class feature's own options beside the feature chosen)
    when: tuple[str, tuple[str, ...]] | tuple[()] = ()


@dataclass(frozen=True)
class Odds:
    """Exact probability of each named outcome, in display order; they sum to 1."""

    outcomes: tuple[tuple[str, Fraction], ...]
    success_keys: tuple[str, ...] = ("pass",)

    def __post_init__(self) -> None:
        total = sum((p for _, p in self.outcomes), Fraction(0))
        if total != 1:
            raise ValueError(f"odds sum to {total}, not 1")

    @property
    def success(self) -> Fraction:
        return sum((p for k, p in self.outcomes if k in self.success_keys), Fraction(0))

    def of(self, key: str) -> Fraction:
        return dict(self.outcomes).get(key, Fraction(0))


@dataclass(frozen=True)
class RollResult:
    """What a roll did: every die, the outcome, and the sheet afterwards if it changed."""

    procedure: str
    label: str
    outcome: str  # e.g. "pass", "fail", "mixed", "hostile", "12 harm"
    summary: str  # one readable sentence
    dice: tuple[DieRoll, ...] = ()
    total: int | None = None
    odds: Odds | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    state: Mapping[str, Any] | None = None  # the new sheet state, when the roll changes the sheet
    details: Mapping[str, Any] = field(default_factory=dict)
    items_added: tuple[Item, ...] = ()
    items_removed: tuple[int, ...] = ()  # Item.id values
    items_changed: tuple[Item, ...] = ()  # replaced by Item.id
    hirelings_changed: tuple[Hireling, ...] = ()  # replaced by Hireling.id
    # New states of the sheets that "character" params named, by param name, when the roll changes them
    # (the target of an attack; a helper's spell die backlashing and an opponent's).
    other_states: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@runtime_checkable
class Procedure(Protocol):
    """A roll a person can make from a sheet (a test, a save, an attack, a rest...)."""

    # Read-only properties, so frozen dataclasses satisfy the protocol.
    @property
    def key(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def gm_only(self) -> bool:
        """Offered on the GM's side rather than on a player's sheet (morale, party saves)."""
        ...

    def params(self, sheet: Any) -> tuple[Param, ...]:
        """The inputs, with choices drawn from this sheet (its weapons, skills, spells, hirelings).

        ``sheet`` is a ``Sheet``; a table procedure (``GameSystem.table_procedures``) gets None.
        """
        ...

    def odds(self, sheet: Any, params: Mapping[str, Any]) -> Odds | None: ...

    def roll(self, sheet: Any, params: Mapping[str, Any], rng: RandomSource) -> RollResult: ...


@dataclass(frozen=True)
class ParamSpec:
    """Inputs a person fills in that are not a roll (creation choices, a hire, an NPC's stat block): the part of a
    ``Procedure`` that ``check_params`` and the forms read, and nothing else (no odds, no roll)."""

    label: str  # names the form in a refusal: "Hire has no option colour."
    fields: tuple[Param, ...]
    key: str = "choices"  # the forms' field-id prefix

    def params(self, sheet: Any) -> tuple[Param, ...]:
        return self.fields


@dataclass(frozen=True)
class Banner:
    """A line the sheet shows above the numbers: a state the player must not miss ("On Death's door")."""

    key: str  # stable, for styling and tests: "dying", "level-ready"...
    title: str  # a short phrase without a closing full stop; the sheet adds it
    text: str = ""
    tone: Literal["info", "good", "warning", "bad"] = "info"


_T = TypeVar("_T")


def returns(value: _T) -> staticmethod[[], _T]:
    """A member that answers a constant, bound in a system class as ``procedures = returns(PROCEDURES)``: one
    line instead of a method re-typing its signature, and mypy still checks the value against the member."""

    def answer() -> _T:
        return value

    return staticmethod(answer)


@runtime_checkable
class SheetRules(Protocol):
    """The core every system has: who it is, its state and what may be carried, creation, the sheet's vitals
    and its rolls. The capabilities below each build on it with defaults; ``GameSystem`` composes them all.
    """

    # --- who it is ---------------------------------------------------------------------------------------
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    # --- optional facts, with defaults -------------------------------------------------------------------
    private_fields: tuple[str, ...] = ()  # state keys only the owner and the GM see (a secret faction)
    wearable_kinds: frozenset[str] = frozenset({"armour", "shield", "helmet"})  # items with Wear/Take off
    # Kinds whose units are alike: taking one you already hold raises that row's quantity (see ``stacks``).
    stacking_kinds: frozenset[str] = frozenset({"gear", "ration", "light", "ammo", "treasure", "coins"})

    # --- state -------------------------------------------------------------------------------------------
    def default_state(self) -> dict[str, Any]: ...

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Return a normalised copy or raise RulesError with a readable message."""
        ...

    def validate_item(self, item: Item) -> Item:
        """A normalised copy of one inventory row, or RulesError with a sentence naming what is wrong.

        Bounds come from the rules: a weapon's die on the system's ladder, armour within its cap, yes/no
        flags as booleans, short names and lists; a key the system does not know is refused.
        """
        ...

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        """A normalised copy of a hireling row (its state is a small sheet), or RulesError."""
        ...

    def validate_sheet(self, sheet: Sheet) -> Sheet:
        """The whole sheet checked after a write, whatever made it: every part, then the rules that bind
        the parts together (by default the carry limit). RulesError with the system's sentence if broken."""
        checked = check_sheet(self, sheet)
        summary = self.slots(checked)
        if summary.hard_limit is not None and summary.used > summary.hard_limit:
            raise RulesError(f"That makes {summary.used} slots, and nobody can carry more than {summary.hard_limit}.")
        return checked

    def item_slots(self, sheet: Sheet, item: Item) -> int:
        """The slots one inventory row really fills, its whole quantity counted (what its line shows)."""
        return max(0, item.slots) * max(1, item.quantity)

    def stacks(self, held: Item, taken: Item) -> bool:
        """Whether ``taken`` joins the row ``held`` (raising its quantity) rather than becoming a row of its own:
        the same thing, of a kind whose units are alike, and not something worn."""
        same = (held.name, held.kind, held.slots, dict(held.data)) == (
            taken.name,
            taken.kind,
            taken.slots,
            dict(taken.data),
        )
        return same and taken.kind in self.stacking_kinds and not (held.worn or taken.worn)

    def check_can_carry(self, sheet: Sheet, item: Item) -> SlotSummary:
        """Refuse an item the character cannot take on (RulesError); the slots with it counted otherwise."""
        with_item = replace(sheet, items=(*sheet.items, item))
        self.validate_sheet(with_item)
        return self.slots(with_item)

    # --- creation ----------------------------------------------------------------------------------------
    def creation_params(self) -> tuple[Param, ...]:
        """The choices the creation form offers; an empty choice leaves it to the dice."""
        return ()

    def create(
        self, choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None
    ) -> Creation:
        """A new character. ``settings``: the campaign's settings in force (None: the defaults)."""
        ...

    # --- what the sheet shows -----------------------------------------------------------------------------
    def tracks(self, sheet: Sheet) -> tuple[Track, ...]: ...

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """Change one track by delta, clamped by the rules; returns the new state."""
        ...

    def slots(self, sheet: Sheet) -> SlotSummary: ...

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        """Short plain words for the table card: "Dead", "Dying", "Deprived", "Over-encumbered"..."""
        ...

    # --- rolls -------------------------------------------------------------------------------------------
    def procedures(self) -> Mapping[str, Procedure]: ...


@runtime_checkable
class StoredState(SheetRules, Protocol):
    """A state stored under older rules, brought to the shape validate_state reads now (rules/upgrades.py, issue 38).
    By default the state has never been reshaped: version 1, no steps."""

    # Bump it when a rule change reshapes the state, and add the step that brings the version before it along:
    # state_upgrades[n - 1] takes version n to n + 1. A state stored without a version is version 1.
    state_version: int = 1
    state_upgrades: tuple[StateUpgrade, ...] = ()

    def upgrade_state(self, state: Mapping[str, Any], version: Any) -> dict[str, Any]:
        """A state stored at ``version`` (None: unversioned) in today's shape, before validate_state reads it; a
        version from a newer Lantern is refused with a sentence (RulesError)."""
        return upgrade(state, version, current=self.state_version, steps=self.state_upgrades, name=self.name)

    # An item's system numbers (``Item.data``) and a hireling's own fields (``Hireling.state``) are stored shapes
    # too, versioned and upgraded alike (validate_item, validate_hireling read today's shape).
    item_version: int = 1
    item_upgrades: tuple[StateUpgrade, ...] = ()
    hireling_version: int = 1
    hireling_upgrades: tuple[StateUpgrade, ...] = ()

    def upgrade_item_data(self, data: Mapping[str, Any], version: Any) -> dict[str, Any]:
        """An item's ``data`` stored at ``version`` in today's shape (RulesError: saved by a newer Lantern)."""
        steps = self.item_upgrades
        return upgrade(data, version, current=self.item_version, steps=steps, name=self.name, what="item")

    def upgrade_hireling_state(self, state: Mapping[str, Any], version: Any) -> dict[str, Any]:
        """A hireling's ``state`` stored at ``version`` in today's shape (RulesError: saved by a newer Lantern)."""
        steps = self.hireling_upgrades
        return upgrade(state, version, current=self.hireling_version, steps=steps, name=self.name, what="hireling")


@runtime_checkable
class RuleSettings(SheetRules, Protocol):
    """Per-campaign rule settings (rules-spec §5.1): the readings a GM may change. By default none."""

    def rule_settings(self) -> tuple[Setting, ...]:
        """The readings a GM may change for a campaign, each with its default (none by default)."""
        return ()

    def settings_in_force(self, stored: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every setting's value for a campaign that stored ``stored``: defaults where it stored nothing."""
        return in_force(self.rule_settings(), stored)

    def validate_settings(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """A campaign's whole set of values checked (RulesError naming the setting); override to bind them."""
        return validated(self.rule_settings(), values, self.name)

    def setting(self, sheet: Sheet | None, key: str) -> Any:
        """One setting as the sheet's campaign has it, or its default (a sheet with no campaign, a test)."""
        if sheet is not None and key in sheet.settings:
            return sheet.settings[key]
        for setting in self.rule_settings():
            if setting.key == key:
                return setting.default
        raise KeyError(f"{self.id} declares no setting {key!r}")

    def apply_settings(self, sheet: Sheet) -> dict[str, Any] | None:
        """An existing character's state brought in line with the creation settings now in force (the
        campaign changed a house default), or None when this system has nothing to apply (the default)."""
        return None


@runtime_checkable
class Presentation(SheetRules, Protocol):
    """What the sheet, the history and the table show beyond the vitals: banners, facts, quick rolls,
    the words for fields and outcomes, descriptive details. By default nothing more than the core."""

    # What history calls a state field: a path ("hp", "abilities.BOD.points") or its first part ("hp").
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType({})
    # What the log and the odds call an outcome key ("new_max" → "new maximum"); unnamed keys lose "_".
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def banners(self, sheet: Sheet) -> tuple[Banner, ...]:
        """What the sheet shows above the numbers, in order (none by default)."""
        return ()

    def sheet_facts(self, sheet: Sheet) -> Mapping[str, Any]:
        """Plain values the system's own sheet template shows (derived numbers, lists, help words).

        Templates only display these: every number on a sheet comes from the rules.
        """
        return {}

    def quick_rolls(self, sheet: Sheet) -> tuple[QuickRoll, ...]:
        """The two or three rolls the system uses most, one tap each from the stat they belong to."""
        return ()

    def field_label(self, path: str) -> str:
        """A state field as the history names it: the system's word, else the path made readable."""
        labels = self.field_labels
        if path in labels:
            return labels[path]
        head, _, rest = path.partition(".")
        words = [labels.get(head, head.replace("_", " "))] + [
            part if part.isupper() else part.replace("_", " ") for part in rest.split(".") if part
        ]
        text = " ".join(words)
        return text[:1].upper() + text[1:]

    def outcome_label(self, key: str) -> str:
        return self.outcome_labels.get(key, key.replace("_", " "))

    def detail_params(self) -> tuple[Param, ...]:
        """Descriptive fields a player edits after creation (background, age); kinds "text" or "int"."""
        return ()

    def with_details(self, sheet: Sheet, details: Mapping[str, Any]) -> dict[str, Any]:
        """The state with edited descriptive fields, checked like every write (RulesError naming the field)."""
        params = {p.name: p for p in self.detail_params()}
        unknown = sorted(set(details) - set(params))
        if unknown:
            raise RulesError(f"{self.name} sheets have no detail called {', '.join(unknown)}.")
        state = dict(sheet.state)
        for name, value in details.items():
            param = params[name]
            if param.kind == "int":
                state[name] = _coerce(param, value)
            else:
                text = str(value or "").strip()
                if len(text) > TEXT_MAX:
                    raise RulesError(f"{param.label} is {len(text)} characters long; at most {TEXT_MAX}.")
                state[name] = text
        return self.validate_state(state)

    def table_facts(self, party: Sequence[tuple[int, Sheet]]) -> Mapping[str, Any]:
        """Plain values the system's GM tools on the table page show, from the party's (id, sheet) pairs."""
        return {}


@runtime_checkable
class Economy(SheetRules, Protocol):
    """Money and the equipment catalogue: every price, purse and money error a person reads."""

    @property
    def coin_label(self) -> str:
        """How the sheet names money, e.g. "coin" or "pennies"."""
        ...

    credit: str = ""  # whose tables the catalogue comes from, shown with them
    money_note: str = ""  # the units explained once, where prices are listed ("12 pennies make a shilling...")
    # What one of the smallest coin is worth in the common unit a mixed table's stash converts through (issue 42):
    # copper pieces, where a torch costs 1 (the one thing nearly every price list sells). None: the system's money
    # has no price against another's (abstract wealth, or no price list): coins cross no system's border.
    coin_worth: Fraction | None = None

    def format_money(self, amount: int) -> str:
        """Money is stored as an int of the smallest coin; this writes it the system's way."""
        return f"{amount} {self.coin_label}"

    def money(self, sheet: Sheet) -> int | None:
        """What the character holds, in the smallest coin (None: this system keeps no purse)."""
        coins = sheet.state.get("coins")
        return int(coins) if isinstance(coins, int) else None

    def pay(self, sheet: Sheet, amount: int, what: str) -> dict[str, Any]:
        """The state after paying ``amount`` for ``what``; RulesError when the purse is short."""
        held = self.money(sheet)
        if held is None:
            raise RulesError(f"{self.name} characters carry no money to pay for {what}.")
        if amount > held:
            raise RulesError(f"{what} costs {self.format_money(amount)}; you have {self.format_money(held)}.")
        return self.validate_state({**sheet.state, "coins": held - amount})

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        """The equipment tables of the rules text, loaded into the admin-editable catalogue."""
        ...

    def coins_from(self, other: Economy, amount: int) -> int:
        """``amount`` of ``other``'s smallest coin in this system's own, through each one's ``coin_worth``; a
        RulesError sentence when either has no worth against the other or the amount does not make whole coins
        of this system (nothing is rounded away: value is neither made nor lost)."""
        used, made = self.whole_coins_from(other, amount)
        if used != amount:
            raise RulesError(
                f"{other.format_money(amount)} does not make whole {self.name} money ({self.coin_label}): "
                f"move a multiple of {other.format_money(self._step_from(other))}."
            )
        return made

    def whole_coins_from(self, other: Economy, amount: int) -> tuple[int, int]:
        """The most of ``amount`` of ``other``'s smallest coin that makes whole coins of this system's: (what it
        takes of ``other``'s, what it makes of ours); a share split at a mixed table pays that, the rest stays.
        RulesError when either system's money has no worth against the other's."""
        if other is self or other.name == self.name:
            return amount, amount
        for side in (self, other):
            if side.coin_worth is None:
                raise RulesError(
                    f"{side.name} money has no worth in the other system's coin: coins cannot pass between "
                    f"{other.name} and {self.name} characters."
                )
        step = self._step_from(other)
        used = amount - amount % step
        return used, int(Fraction(used) * other.coin_worth / self.coin_worth)  # type: ignore[operator]

    def _step_from(self, other: Economy) -> int:
        """The fewest of ``other``'s coin that make whole coins of ours: the denominator of their ratio."""
        return (Fraction(other.coin_worth) / self.coin_worth).denominator  # type: ignore[arg-type, operator]

    def receive(self, sheet: Sheet, amount: int, what: str) -> dict[str, Any]:
        """The state after the character takes ``amount`` of the smallest coin (``what``: from where, for the
        sentence); RulesError when this system keeps no purse or the purse cannot hold that much. A system whose
        money is not ``state["coins"]`` overrides this with ``money`` and ``pay`` (the party's stash splits coin
        through these three)."""
        held = self.money(sheet)
        if held is None:
            raise RulesError(f"{self.name} characters carry no money to take {what}.")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RulesError("Coins come in whole numbers, zero or more.")
        return self.validate_state({**sheet.state, "coins": held + amount})


@runtime_checkable
class HiredHelp(SheetRules, Protocol):
    """Hirelings, retainers and helpers: how many, the hire form, the hire itself."""

    limited_hireling_kinds: tuple[str, ...] | None = None  # kinds that count against hireling_limit; None: all

    def hireling_limit(self, sheet: Sheet) -> int | None:
        return None

    def counts_against_limit(self, hireling: Hireling) -> bool:
        kinds = self.limited_hireling_kinds
        return kinds is None or hireling.kind in kinds

    def check_limits(self, sheet: Sheet) -> None:
        """The caps the rules put on what a character gathers in play (hirelings, spells known, spare shields),
        checked on a whole sheet at once: RulesError with the rule's sentence past one.

        The writes that add one check their own cap as they add it (``hire``, a learning roll, ``check_can_carry``);
        a sheet that arrives whole (an imported file) meets them all here. A system whose abilities drop with
        wounds reads them at full strength: what was gathered stays when a wound lowers the ability it was counted
        against. Default: the hirelings that count, against ``hireling_limit``."""
        check_count(sheet.hirelings, self.hireling_limit(sheet), "hirelings", counts=self.counts_against_limit)

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        """The choices the hire form offers (name, kind, how HP are set...)."""
        return (Param("name", "Name", "text", "", help="Leave blank for a random name."),)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        """A new hireling/retainer/helper row (RulesError past the limit or when unaffordable).

        The campaign's settings are in ``sheet.settings``."""
        ...

    def loot_share(self, hireling: Hireling) -> LootShare | None:
        """The share of the party's coin this hireling takes when it is split (rules.loot.split_coins); None: no
        share (paid by the day or the week instead). Default: none."""
        return None


# The table conditions a GM may try out on a group check before asking it (issue 40, TableRules.what_if): the dark,
# one difficulty step either way, and the system's advantage or disadvantage (Fortune's Favor or Misfortune...) for all.
WHAT_IF_DARK, WHAT_IF_HARDER, WHAT_IF_EASIER, WHAT_IF_BOON, WHAT_IF_BANE = "dark", "harder", "easier", "boon", "bane"
WHAT_IF_KEYS = (WHAT_IF_DARK, WHAT_IF_HARDER, WHAT_IF_EASIER, WHAT_IF_BOON, WHAT_IF_BANE)


# "Check with X" (issue 42): the few checks a GM asks of a mixed table at once, each system answering with its own
# nearest roll (TableRules.shared_checks). The words are the table's, not any system's.
CHECK_MIGHT, CHECK_AGILITY, CHECK_WITS, CHECK_PRESENCE, CHECK_DANGER, CHECK_LUCK = (
    "might",
    "agility",
    "wits",
    "presence",
    "danger",
    "luck",
)
SHARED_CHECKS: Mapping[str, str] = MappingProxyType(
    {
        CHECK_MIGHT: "Strength or might",
        CHECK_AGILITY: "Agility or dexterity",
        CHECK_WITS: "Wits or intelligence",
        CHECK_PRESENCE: "Presence or will",
        CHECK_DANGER: "A save against danger",
        CHECK_LUCK: "Luck",
    }
)


@dataclass(frozen=True)
class CheckAsked:
    """A system's own roll for a shared check: the procedure's key and the inputs the check fixes (checked by the
    procedure's own params against each sheet when asked)."""

    procedure: str
    inputs: Mapping[str, Any] = field(default_factory=dict)


def in_the_dark(sheet: Sheet) -> Sheet:
    """The sheet as the table would give it in darkness (the table's light condition, rules.clock's key)."""
    return replace(sheet, table={**dict(sheet.table or {}), "light": "darkness"})


def nudged(params: Mapping[str, Any], name: str, by: int | bool, low: int = 0, high: int = 99) -> dict[str, Any] | None:
    """``params`` with one input moved: an int by ``by`` within [low, high], a flag set to ``by``; None when the
    roll has no such input or it is where the move would take it already (the condition changes nothing)."""
    if name not in params or (params[name] is None and not isinstance(by, bool)):  # an empty int stays the rules'
        return None
    now = params[name]
    if isinstance(by, bool):
        moved: Any = by
    else:
        moved = min(high, max(low, int(now or 0) + by))
    return None if moved == now else {**params, name: moved}


WhatIfMove = tuple[str, "int | bool", int, int]  # an input, how it moves (a step, or a flag set), its bounds


def moved_what_if(
    condition: str, sheet: Sheet, params: Mapping[str, Any], moves: Mapping[str, tuple[WhatIfMove, ...]]
) -> tuple[Sheet, dict[str, Any]] | None:
    """TableRules.what_if for a system whose conditions are its roll inputs moved (``moves`` by condition: Fell's DN
    one higher, C&C's advantage set), and the dark as the table's light; None where no input of the roll moves."""
    if condition == WHAT_IF_DARK:
        return in_the_dark(sheet), dict(params)
    changed: dict[str, Any] | None = None
    for name, by, low, high in moves.get(condition, ()):
        changed = nudged(changed or params, name, by, low, high) or changed
    return None if changed is None else (sheet, changed)


@runtime_checkable
class TableRules(SheetRules, Protocol):
    """The GM's table (issue 16): roll requests, the encounter tracker, the clock. Every member has a
    default, so a system with none of these rules runs a whole session already; implement what your rules say."""

    def table_procedures(self) -> Mapping[str, Procedure]:
        """Rolls the GM makes from the table for no character (an NPC's morale): called with ``sheet=None``."""
        return {}

    def group_result(self, procedure: str, outcomes: Sequence[str]) -> GroupResult | None:
        """What a roll the GM asked of several characters means for the group, from each one's outcome key
        (C&C: a party save passes when anyone passes). None (the default): the system has no group result."""
        return None

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        """Who acts in what order this round, step by step, and which side each step is (``CombatOrder.sides``:
        the table moves the turn along them and tells each player when it is theirs); both sides acting at once
        is one step of ``BOTH``. Dice rolled are logged as the GM's. Default: the party first, then the enemies."""
        return CombatOrder(("The party acts", "The enemies act"), "The party acts first.", sides=(PARTY, ENEMIES))

    # How much game time one combat round takes; ending an encounter adds them, and the clock says so meanwhile.
    combat_round_seconds: int = 10

    def end_of_combat(self) -> str | None:
        """The character procedure every PC rolls when an encounter ends (C&C weapon wear and ammunition):
        the table asks each player for it as a roll request. None (the default): nothing to roll."""
        return None

    def time_units(self) -> tuple[TimeUnit, ...]:
        """The units the GM's clock advances by, in the system's words (turns, watches, days)."""
        return DEFAULT_TIME_UNITS

    def time_steps(self, start_seconds: int, seconds: int) -> tuple[tuple[TimeUnit, int], ...]:
        """A span of the table's game time in this system's own steps, for a character of this system at a
        table whose clock counts another's units (issue 42): each (unit, count) to ``advance_time`` by, in turn.
        Default: ``steps_on_grid`` over the plain ``time_units`` (the start is the table's game second, so short
        spans add up across moves)."""
        return steps_on_grid(self.time_units(), start_seconds, seconds)

    def advance_time(
        self, sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
    ) -> RollResult:
        """One character's sheet after ``count`` of ``unit`` pass from game minute ``start_minutes`` (and
        ``start_seconds`` into it, for a unit shorter than a minute): light burning down, food eaten at the
        system's rhythm, deprivation, timed effects ending. The RollResult carries the new state and item changes
        and a sentence; the default changes nothing."""
        return RollResult("time", "Time passes", "nothing", "")

    def round_passes(self, sheet: Sheet, rng: RandomSource) -> RollResult:
        """One PC's sheet as the encounter tracker starts a new round: effects timed in rounds tick down and end
        (Fortune's Favor statuses and Last Stand; C&C armour lost to criticals comes back). The RollResult
        carries the new state and a sentence; the default changes nothing."""
        return RollResult("round", "A new round", "nothing", "")

    def fight_ends(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        """One PC's sheet as the tracker ends a fight that lasted ``minutes`` of game time: lit light sources burn
        that long (``rules.clock.burn``), effects that last the fight end. The default changes nothing."""
        return RollResult("fight_over", "The fight is over", "nothing", "")

    def time_checks(self, unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
        """The table's own rolls as time passes (C&C encounter checks, Fell's luck die), logged as the GM's."""
        return ()

    def light_sources(self) -> Lights | None:
        """How the system's light sources burn (``rules.clock.Lights``): the table shows each light's time left,
        warns its holder and lets the GM correct it. None (the default): the system burns no lights."""
        return None

    def light_level(self, party: Sequence[Sheet]) -> Banner | None:
        """How well the party sees, from the lights lit on its sheets (C&C: bright, dim, darkness); None:
        the system does not track it (the default)."""
        return None

    def table_conditions(self, party: Sequence[Sheet]) -> dict[str, Any]:
        """What the party's situation is now, as plain values every sheet at the table receives in
        ``Sheet.table`` (the app recomputes them when a light is lit or put out, time passes or the party
        changes). Default: ``{"light": key}`` of ``light_level`` when the system tracks light, else nothing."""
        light = self.light_level(party)
        return {} if light is None else {"light": light.key}

    def condition_probes(self, sheet: Sheet) -> Sequence[tuple[str, Sheet]]:
        """The statuses set on this character that may change its rolls, each as (its name, the same sheet
        without it): the roll controls show a status beside the rolls whose odds it changes
        (rules/odds_conditions.py). Default: none."""
        return ()

    def shared_checks(self) -> Mapping[str, CheckAsked]:
        """The table's shared checks (``SHARED_CHECKS``: "check with might"...) this system answers, each with its own
        nearest roll: at a mixed table the GM asks one check and every PC rolls their own system's. A check left out
        has no roll here (the GM picks this system's roll by hand). Default: none."""
        return {}

    def what_ifs(self) -> Mapping[str, str]:
        """The table conditions the GM's "what if" row of a group check offers (issue 40), by key (WHAT_IF_DARK,
        WHAT_IF_HARDER, ...) with the words the system uses for them. Default: the dark alone."""
        return {WHAT_IF_DARK: "In the dark"}

    def what_if(self, condition: str, sheet: Sheet, params: Mapping[str, Any]) -> tuple[Sheet, dict[str, Any]] | None:
        """One character's roll (its sheet and checked inputs) as it would be were ``condition`` true for the whole
        table, in the system's own sense; None: the condition means nothing to this roll. Nothing is written: the GM
        sees the odds before and after. Default: the dark, as the table's light (``Sheet.table``) a system that
        tracks light reads (C&C: saves at disadvantage); anything else means nothing."""
        if condition == WHAT_IF_DARK:
            return in_the_dark(sheet), dict(params)
        return None


@runtime_checkable
class FightRules(SheetRules, Protocol):
    """NPCs in the encounter tracker and the hits between them and the party (issues 16, 26, 30): their stat
    blocks and rolls, an NPC's hit landing on a PC's sheet, a PC's on an NPC. Every member has a default: a
    system without them runs a fight where the GM types the damage."""

    # The system rolls a PC's attack on the tracker's NPCs (it answers ``pc_attack_on_npcs``): the tracker offers
    # the attack form. Said outright, so the app asks a flag, not which class a method came from.
    attacks_npcs: ClassVar[bool] = False

    def harm_offer(self, sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
        """When moving track ``key`` by ``delta`` by hand crosses a line the rules act on (0 HP, 0 Stamina, into
        Flesh, stress with no empty slot), the procedure that does it by the rules: the sheet's Change box offers
        it in place, and a plain change says what it left out. None: a plain change is all the rules ask."""
        return None

    def npc_fields(self) -> tuple[Param, ...]:
        """An NPC's or monster's stat block for the encounter tracker: "int" or "choice" params with their
        bounds. The first is the track damage lowers; the app refuses values outside them."""
        return DEFAULT_NPC_FIELDS

    def npc_damage(
        self,
        stats: Mapping[str, Any],
        start: Mapping[str, Any],
        amount: int,
        ignore_armour: bool = False,
        rng: RandomSource | None = None,
    ) -> NpcHarm:
        """An NPC's stats after ``amount`` damage typed at the table (``start``: the stats it entered the
        fight with), and the prompts it raises. ``rng``: where the rules roll at the moment of harm (Fell (late):
        critical harm's STR test), put the rolls in ``NpcHarm.rolls`` (the table logs them as the GM's); None
        (a preview, a test) leaves them to the GM as prompts. Default: an "armour" field takes its points off,
        the first field goes down, 0 defeats; nothing calls for morale; no dice."""
        track = self.npc_fields()[0].name
        armour = 0 if ignore_armour else int(stats.get("armour", 0) or 0)
        dealt = max(0, amount - armour)
        left = max(0, int(stats.get(track, 0) or 0) - dealt)
        words = f"{dealt} damage gets through" + (f", {armour} stopped by armour." if armour and amount else ".")
        return NpcHarm({**stats, track: left}, dealt, defeated=left <= 0, words=words)

    def npc_rolls(self) -> Mapping[str, str]:
        """The rolls the GM makes for an NPC from the tracker, key → label ("morale" → "Morale"). None by default."""
        return {}

    def npc_roll(self, key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
        """One of ``npc_rolls`` for an NPC with these stats: logged as the GM's roll, never a character's. A roll
        that changes the NPC returns its new stat block as ``state`` and ``details["defeated"]`` when it is out."""
        raise RulesError(f"{self.name} has no NPC roll called {key!r}.")

    def npc_roll_at(self, key: str, stats: Mapping[str, Any], sheet: Sheet | None, rng: RandomSource) -> RollResult:
        """``npc_roll`` aimed at a PC (``sheet``: None for no target), whose own state may change the roll (a
        Prone or Blind target). Default: the target changes nothing."""
        return self.npc_roll(key, stats, rng)

    def npc_attack_harm(self, result: RollResult, sheet: Sheet) -> AttackHarm | None:
        """What an NPC's roll (``npc_roll``) does to the PC with this sheet: None when it is no attack (morale),
        or the system leaves the damage to the GM. Default: None."""
        return None

    def npc_target_procedures(self) -> tuple[str, ...]:
        """The PC rolls (procedure keys) that may target an NPC of the running fight: their form offers the
        fight's NPCs, and what hits lands on the one picked (``hits_on_npc``). Default: none."""
        return ()

    def npc_target_params(self, procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
        """The inputs of a PC's roll (one of ``npc_target_procedures``) that an NPC target sets from its stat block
        (its armour), so the odds shown and the roll are against it. A key set to None is an input that names
        another target (a character): the app refuses a roll that names both. Default: none."""
        return {}

    def hits_on_npc(self, result: RollResult) -> tuple[NpcHit, ...]:
        """What a PC's roll on an NPC (one of ``npc_target_procedures``) delivers to it: each hit's damage, for
        ``npc_damage`` to take off the NPC by its rules. () misses. Default: nothing."""
        return ()

    def pc_attack_on_npcs(
        self, npcs: Sequence[tuple[Mapping[str, Any], Sequence[str]]], choices: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """A PC's attack on NPCs of the encounter (one, or several at once in an area attack): the character
        procedure to roll and its inputs, from each NPC's stat block and status names, and the attacker's own
        ``choices`` (a class feature...). None (the default): the system has no such roll; the GM applies damage
        by hand. ``pc_attack_damage`` reads what each NPC takes from the roll."""
        return None

    def pc_attack_damage(self, result: RollResult, count: int) -> list[int]:
        """The damage each of the ``count`` NPCs (in the order given) takes from a ``pc_attack_on_npcs`` roll."""
        return [0] * count

    # --- a mixed table (issue 42): a fighter of another system, whose stat block or sheet these rules cannot read

    def npc_stand_in(self) -> dict[str, Any]:
        """How these rules see a combatant of another system: a stat block of ``npc_fields``. A PC of this system
        attacking another system's NPC rolls against it (``npc_target_params``, ``pc_attack_on_npcs``), and the NPC's
        own rules take its armour off what lands; this system's NPC attacking another system's PC hits it
        (``npc_attack_outside``). So its armour takes nothing off: the target's own rules do. Default: each field's
        default (every system's NPC fields default to no armour)."""
        return {p.name: p.default for p in self.npc_fields()}

    def npc_attack_outside(self, result: RollResult) -> AttackHarm | None:
        """What an NPC's roll (``npc_roll``) does to a PC of another system, whose sheet these rules cannot read:
        whether it lands against ``npc_stand_in`` and the damage before the target's armour, which the target's own
        rules take off (``harm_from_outside``). ``AttackHarm.params`` is left empty. None: the roll is no attack,
        or the GM applies it by hand (the default)."""
        return None

    def harm_from_outside(self, amount: int) -> dict[str, Any] | None:
        """The inputs of this system's own harm procedure (``HARM_PROCEDURES``) for ``amount`` damage from a blow
        another system's rules rolled (an NPC of another system at a mixed table): its armour, criticals and what
        comes past 0 stay this system's. None (the default): the GM takes it off the sheet by hand."""
        return None


@runtime_checkable
class GameSystem(
    TableRules, FightRules, HiredHelp, Economy, Presentation, RuleSettings, StoredState, SheetRules, Protocol
):
    """The one interface every system package offers as ``SYSTEM``; the app reaches a system only here.

    It is the core (``SheetRules``) and every capability, each with its defaults: a system class subclasses it
    explicitly, inherits the defaults of what it leaves out (they do nothing, or the common rule), and ``mypy``
    checks it against the rest. A system binds its module functions rather than re-typing their signatures:
    ``validate_state = staticmethod(state.validate_state)``, ``procedures = returns(PROCEDURES)``; mypy checks
    the bound function against the member it replaces.
    """


@dataclass(frozen=True)
class GroupResult:
    """What a roll asked of several characters means for the whole group (GameSystem.group_result)."""

    outcome: str  # a key, worded with outcome_label
    summary: str


@dataclass(frozen=True)
class NpcHarm:
    """An NPC after damage from the table (GameSystem.npc_damage)."""

    stats: Mapping[str, Any]
    dealt: int
    defeated: bool = False
    morale: bool = False  # the system's morale trigger fired: the table prompts a morale check
    words: str = ""
    rolls: tuple[RollResult, ...] = ()  # dice the rules rolled at the moment of harm, logged as the GM's


@dataclass(frozen=True)
class AttackHarm:
    """What an NPC's attack does to one PC (GameSystem.npc_attack_harm): whether it lands, the damage, the words
    for the log ("hit, 5 damage"), and the inputs of the sheet's own harm procedure (rules.base.HARM_PROCEDURES)
    that takes it: armour, criticals and what comes past 0 stay that procedure's business."""

    lands: bool
    amount: int
    words: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NpcHit:
    """One hit of a PC's roll on an NPC (GameSystem.hits_on_npc): its damage and whether the NPC's armour is
    passed by (``npc_damage``'s ``ignore_armour``: a critical, or armour the roll took off already)."""

    amount: int
    ignore_armour: bool = False


# Who acts at one step of a round (CombatOrder.sides): the party, the enemies, both sides at once, or neither (the
# surroundings: fire spreading, a bridge giving way). The table moves the turn step by step; a player's sheet says
# "your turn" at a step of the party's or of both sides'.
PARTY, ENEMIES, BOTH, WORLD = "party", "enemies", "both", "world"
SIDES = (PARTY, ENEMIES, BOTH, WORLD)
PARTY_ACTS = frozenset({PARTY, BOTH})


@dataclass(frozen=True)
class CombatOrder:
    """One round's order (GameSystem.combat_order): its steps in order, who acts at each (``sides``, one of
    ``SIDES`` per step), a sentence, any dice rolled. Both sides acting at once is one step of ``BOTH``."""

    steps: tuple[str, ...]
    summary: str
    dice: tuple[DieRoll, ...] = ()
    sides: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.steps) or not self.steps:
            raise ValueError(f"a combat order names who acts at each of its {len(self.steps)} steps")
        unknown = sorted(set(self.sides) - set(SIDES))
        if unknown:
            raise ValueError(f"no side called {', '.join(unknown)}")


@dataclass(frozen=True)
class TimeUnit:
    """A unit the clock advances by: its key, its name and how long it lasts: ``minutes`` and, for a unit that is
    not a whole number of minutes (Fortune's Favor's 30-second round), ``seconds`` more."""

    key: str
    label: str
    minutes: int
    seconds: int = 0
    # Only time going by: a span of another system's clock may be counted in it (issue 42). False for a unit that
    # also says what the party does in it (a safe night's sleep, an hour through treacherous terrain).
    plain: bool = True

    @property
    def length(self) -> int:
        """In seconds."""
        return self.minutes * 60 + self.seconds


def steps_on_grid(units: Sequence[TimeUnit], start_seconds: int, seconds: int) -> tuple[tuple[TimeUnit, int], ...]:
    """A span of game time (from the table's game second ``start_seconds``, ``seconds`` long) counted in ``units``'
    plain ones: as many of the shortest as the span crosses on its own grid (multiples of its length since the
    clock's zero), so short spans add up over successive moves (ten single minutes cross one ten-minute turn),
    then written largest first. Each (unit, count); none when the span crosses no step."""
    plain = sorted((u for u in units if u.plain and u.length > 0), key=lambda u: -u.length)
    if not plain or seconds <= 0:
        return ()
    finest = plain[-1].length
    left = ((start_seconds + seconds) // finest - start_seconds // finest) * finest
    steps = []
    for unit in plain:
        count, left = divmod(left, unit.length)
        if count:
            steps.append((unit, count))
    return tuple(steps)


DEFAULT_NPC_FIELDS: tuple[Param, ...] = (
    Param("hp", "HP", "int", 4, 0, 999),
    Param("armour", "Armour", "int", 0, 0, 20),
    Param("morale", "Morale", "int", 7, 2, 12),
)
DEFAULT_TIME_UNITS: tuple[TimeUnit, ...] = (TimeUnit("hour", "Hour", 60), TimeUnit("day", "Day", 1440))


# The descriptive fields most systems keep in the state and let a player edit (GameSystem.detail_params).
BACKGROUND_AND_AGE: tuple[Param, ...] = (
    Param("background", "Background", "text", ""),
    Param("age", "Age", "int", 0, minimum=0, maximum=1000),
)


# The sheet's Roll part lists the rolls of the moment first (tests, attacks, spells, harm) and keeps errands apart:
# buying, learning, paying, resting, the book-keeping between sessions. An errand's button says what it does
# ("Rest", "Learn") rather than "Roll". Keyed by procedure key, which the systems share for the same errand.
ERRANDS: Mapping[str, str] = {
    "rest": "Rest",
    "deprivation": "Mark the day",
    "stay_awake": "Stay awake",
    "push_pace": "Push on",
    "learn_spell": "Learn",
    "learn_skill": "Learn",
    "find_scroll": "Add the scroll",
    "study_scroll": "Study",
    "purify": "Purify",
    "spell_die": "Change",
    "swap": "Swap",
    "buy": "Buy",
    "pay_hirelings": "Pay",
    "pay_helpers": "Pay",
    "shares": "Share",
    "surgeon": "See the surgeon",
    "fill_bubble": "Fill",
    "empty_bubbles": "Empty",
    "restock": "Restock",
    "repair": "Repair",
    "equip": "Change",
    "xp": "Add XP",
    "gain_xp": "Add XP",
    "advance": "Advance",
    "level_up": "Level up",
}
# The procedure that takes harm by a system's rules (armour, what comes past 0: critical harm, Death's door, the save
# vs death): the sheet's raw Change box only moves a number, never past 0, and points to it.
HARM_PROCEDURES = ("take_harm", "take_damage", "damage")
# Shopping has one way in, the equipment picker of the Gear part: a procedure that buys from the same price list
# stays in the rules but not in the Roll part (Fell (draft) had both).
BOUGHT_IN_THE_PICKER = frozenset({"buy"})


@dataclass(frozen=True)
class HarmOffer:
    """A change by hand the rules would rather make themselves (``SheetRules.harm_offer``): their procedure with
    its inputs filled in, and what a plain change leaves out, in a few words ("critical harm and Dying")."""

    procedure: str  # a key of procedures()
    params: Mapping[str, Any]
    skipped: str


@dataclass(frozen=True)
class QuickRoll:
    """A one-tap roll: a procedure with its inputs filled in, shown beside the stat it uses."""

    label: str  # "Test BOD"
    procedure: str
    params: Mapping[str, Any] = field(default_factory=dict)
    stat: str = ""  # the stat it sits beside ("BOD", "STR"); "" for the bar above the panel
    # Yes/no inputs the bar asks with a toggle each, ticked at first as ``params`` says, rather than fixing them
    # (Grit & Flesh's "the skill for it?" and "the tools?": the sheet cannot know what a task calls for).
    asks: tuple[str, ...] = ()

    @property
    def posted(self) -> tuple[tuple[str, str], ...]:
        """The inputs as its button posts them, the way the roll panel's form would: a yes sends "on", a no
        sends nothing (so an unticked box reads as no, and never as the text "False"). The asked ones are the
        toggles' to send."""
        out: list[tuple[str, str]] = []
        for name, value in self.params.items():
            if name in self.asks:
                continue
            if isinstance(value, bool):
                if value:
                    out.append((name, CHECKBOX_ON))
            else:
                out.append((name, str(value)))
        return tuple(out)


@dataclass(frozen=True)
class CatalogueEntry:
    """One row of a system's equipment table. ``cost`` is in the smallest coin; ``data`` as Item.data."""

    name: str
    kind: str
    cost: int | None
    slots: int = 1
    group: str = ""  # the table it came from: "Weapons", "Armour", "Animals", "Services"...
    data: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Creation:
    """A new character: its state, starting items and the rolls made on the way (shown to the player)."""

    name: str
    state: dict[str, Any]
    items: tuple[Item, ...] = ()
    rolls: tuple[RollResult, ...] = ()


def sheet_state(sheet: Sheet, validate: Callable[[Mapping[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``validate(sheet.state)``, worked out once per sheet: a page asks the rules dozens of questions of one
    sheet, and each starts from the validated state. Callers get their own copy, free to change."""
    memo = sheet.__dict__.get("_validated_state")
    if memo is None or memo[0] not in (validate, _CHECKED):
        memo = (validate, validate(sheet.state))
        object.__setattr__(sheet, "_validated_state", memo)  # a cache, not a field: eq, hash, replace ignore it
    return plain_copy(memo[1])


def plain_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times cheaper than copy.deepcopy."""
    if type(value) is dict:
        return {key: plain_copy(inner) for key, inner in value.items()}
    if type(value) is list:
        return [plain_copy(inner) for inner in value]
    if type(value) is tuple:
        return tuple(plain_copy(inner) for inner in value)
    if isinstance(value, dict | list):  # a subclass: leave it to the general copy
        return copy.deepcopy(value)
    return value


def check_count(
    rows: Sequence[Any], limit: int | None, what: str, why: str = "", *, counts: Callable[[Any], bool] | None = None
) -> None:
    """HiredHelp.check_limits' sentence: RulesError when more of ``rows`` (those ``counts`` keeps; all by default)
    are held than ``limit`` allows."""
    held = sum(1 for row in rows if counts is None or counts(row))
    if limit is not None and held > limit:
        raise RulesError(f"That sheet holds {held} {what}; {why or 'the rules allow'} {limit} at most.")


def check_sheet(system: SheetRules, sheet: Sheet) -> Sheet:
    """The sheet with its state, every item and every hireling validated by the system.

    Rules functions may assume what validation promises, so the app checks a stored sheet before
    rolling or showing numbers from it: data written before a bound existed (or straight into the
    database) then ends in a sentence, not in an error page or a minute of arithmetic.
    """
    checked = replace(
        sheet,
        state=system.validate_state(sheet.state),
        items=tuple(system.validate_item(item) for item in sheet.items),
        hirelings=tuple(system.validate_hireling(h) for h in sheet.hirelings),
    )
    # Its state is valid already (validation is idempotent: the contract suite holds every system to it), so
    # the rules' own sheet_state() calls on it start from it without validating it again.
    object.__setattr__(checked, "_validated_state", (_CHECKED, checked.state))
    return checked


_CHECKED = object()  # sheet_state's memo key for a state check_sheet validated


def checked_as(checked: Sheet, sheet: Sheet) -> Sheet | None:
    """``checked`` (a sheet ``check_sheet`` returned, a write's) standing in for ``sheet`` when both hold the same
    state, items and hirelings: ``sheet``'s name, settings and table on it, still checked (validation reads none
    of them), so a write's answer does not validate what the write just did. None when they differ."""
    if (checked.state, checked.items, checked.hirelings) != (sheet.state, sheet.items, sheet.hirelings):
        return None
    memo = checked.__dict__.get("_validated_state")
    if memo is None or memo[0] is not _CHECKED:
        return None
    same = replace(checked, name=sheet.name, settings=sheet.settings, table=sheet.table)
    object.__setattr__(same, "_validated_state", memo)
    return same


def check_params(procedure: Procedure | ParamSpec, sheet: Sheet | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults, coerce and range-check the inputs a person sent to a roll or a form (a ``ParamSpec``);
    RulesError on nonsense."""
    clean: dict[str, Any] = {}
    params = procedure.params(sheet)
    known = {p.name for p in params}
    unknown = sorted(set(given) - known)
    if unknown:
        raise RulesError(f"{procedure.label} has no option {', '.join(unknown)}.")
    for p in params:
        raw = given.get(p.name, p.default)
        clean[p.name] = _coerce(p, raw)
    return clean


def clean_params(procedure: Procedure, sheet: Sheet | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """check_params for everything but resolved characters, which pass through as Sheets (or None).

    The app resolves a "character" param to that character's Sheet before calling a procedure; a
    Sheet given for a name that is no character param is refused.
    """
    people = {k: v for k, v in params.items() if isinstance(v, Sheet)}
    clean = check_params(procedure, sheet, {k: v for k, v in params.items() if k not in people})
    characters = {p.name for p in procedure.params(sheet) if p.kind == "character"}
    stray = sorted(set(people) - characters)
    if stray:
        raise RulesError(f"{procedure.label} has no place for a character as {', '.join(stray)}.")
    for name in characters:
        clean[name] = people.get(name)
    return clean


def shown_inputs(params: Mapping[str, Any]) -> dict[str, Any]:
    """A roll's inputs as the log keeps them: a resolved character becomes its name."""
    return {k: (v.name or "a character") if isinstance(v, Sheet) else v for k, v in params.items()}


def entry_key(entry: Item | Hireling, index: int, prefix: str = "i") -> str:
    """The choice value naming one item or hireling: its id, or its place when it has none (a preview)."""
    return str(entry.id) if entry.id is not None else f"{prefix}{index}"


def _coerce(p: Param, raw: Any) -> Any:
    if p.kind == "bool":
        if isinstance(raw, bool):
            return raw
        if raw == CHECKBOX_ON:
            return True
        raise RulesError(f"{p.label}: tick the box or leave it unticked.")
    if p.kind == "int":
        if raw is None or raw == "":
            raw = p.default
            if raw is None:  # an optional number left empty: "let the dice decide" on a creation form
                return None
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise RulesError(f"{p.label} must be a whole number.") from None
        if p.minimum is not None and value < p.minimum:
            raise RulesError(f"{p.label} must be at least {p.minimum}.")
        if p.maximum is not None and value > p.maximum:
            raise RulesError(f"{p.label} must be at most {p.maximum}.")
        return value
    if p.kind == "multichoice":
        values = {v for v, _ in p.choices}
        picked = [raw] if isinstance(raw, str) else list(raw or [])
        bad = [str(v) for v in picked if str(v) not in values]
        if bad:
            raise RulesError(f"{p.label}: {', '.join(bad)} is not an option here.")
        return tuple(str(v) for v in picked)
    if p.kind == "character":
        if raw in (None, ""):
            return None
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise RulesError(f"{p.label}: pick a character at the table.") from None
    if p.kind == "choice":
        allowed = [v for v, _ in p.choices]
        if raw in (None, "") and p.default is not None:
            raw = p.default
        if str(raw) not in allowed:
            raise RulesError(f"{p.label}: choose one of {', '.join(label for _, label in p.choices)}.")
        return str(raw)
    text = "" if raw is None else str(raw)[:200]
    if "\x00" in text:  # PostgreSQL cannot store it
        raise RulesError(f"{p.label} cannot contain a NUL character.")
    if p.minimum and len(text.strip()) < p.minimum:
        raise RulesError(
            f"{p.label} can't be left empty." if p.minimum == 1 else f"{p.label}: at least {p.minimum} characters."
        )
    return text
