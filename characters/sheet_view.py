"""The character sheet, region by region: what the page and each of its live regions draw, and nothing else.

Every open sheet re-fetches a region on its signal, so ``sheet_view`` reads only the regions asked for, in a
fixed number of queries whatever the size of the inventory; the whole page is the same builder asked for every
region (and the roll panel). Reads only: the viewer (``Seat.viewer``, read with the character by
``selectors.character_for``) decides what they may see and do. The views pick the template and the status.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from functools import cache
from typing import Any
from urllib.parse import quote

from django.forms import Form
from django.http import QueryDict
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from characters import services, table
from characters.controls import procedure_fields
from characters.forms import CustomItemForm, VisibilityForm, raw_params
from characters.models import OFFERS_PENDING_MAX, CatalogueItem, Change, Character, Hireling, Item, OfferedChange, Roll
from characters.selectors import Seat, Viewer, catalogue_matching, rolls_at_table, rolls_visible_to
from characters.system_templates import system_template
from characters.templatetags.lantern import item_notes
from rules import SYSTEMS, RulesError, system_for
from rules import base as rules_base
from rules.clock import Lights, lit, remaining
from rules.errors import Settled
from rules.hand import dice_needed
from rules.odds_conditions import ConditionChip, condition_chips

Context = dict[str, Any]

# The live regions of templates/characters/sheet.html (characters:region serves these).
REGIONS = ("offers", "vitals", "details", "inventory", "hirelings", "log")
# "odds": the roll panel's open odds boxes, refreshed in one request (out of band) when a change that
# touches no other region moves them (a hireling hired); a state change brings them with "details".
LIVE_PARTS = (*REGIONS, "odds")

LOG_FILTERS = (("party", "Everyone"), ("mine", "This character"), ("gm", "The GM"))
UNDO_WINDOW = timedelta(minutes=10)
PICKER_ROWS = 60  # one answer of the equipment picker: enough to browse a table, fast at any catalogue size


@dataclass(frozen=True)
class ItemRow:
    """One line of the inventory: the item, and the slots it takes as the rules count them (a stack's true
    slots; the row's own when the rules can't read the sheet)."""

    item: Item
    slots: int
    # A light's game minutes left (its holder and the GM see them; None: not a light that burns, or not theirs to
    # see) and whether that is at or under the table's low-fuel line (issue 41).
    light_left: int | None = None
    light_low: bool = False


@dataclass(frozen=True)
class HirelingRow:
    """One line of the hirelings: the hireling, and its wage the system's way ("" when the sheet is unreadable)."""

    hireling: Hireling
    wage: str = ""


@dataclass
class SheetView:
    """What the asked regions of one sheet draw. A field a region did not ask for stays at its default: the
    templates read a missing part and a default one alike (None, empty)."""

    character: Character
    viewer: Viewer
    playable: bool
    personal: bool = True  # False: drawn for every viewer of its kind (see sheet_view)
    # offers (what other players' rolls would change, waiting for an answer)
    offers: list[OfferedChange] | None = None
    offers_more: int | None = None  # pending offers past the cap: said, never hidden
    undo: dict | None = None  # the viewer's own latest change, while it may be put back
    harm_procedure: Any = None  # what takes harm by the rules, where the Change box points
    coins: str | None = None
    # log
    recent_rolls: list[Roll] | None = None
    log_filter: str | None = None
    log_filters: tuple[tuple[str, str], ...] | None = None
    # the rules' view of the sheet
    rules: Any = None
    state: dict | None = None
    items: list[ItemRow] = field(default_factory=list)
    hirelings: list[HirelingRow] = field(default_factory=list)
    custom_item_fields: SafeString | None = None
    sheet_problem: str | None = None  # the stored numbers the rules can't read, and the way out
    slots: rules_base.SlotSummary | None = None
    tracks: tuple[rules_base.Track, ...] = ()
    conditions: tuple[str, ...] = ()
    banners: tuple[rules_base.Banner, ...] = ()
    facts: Mapping[str, Any] | None = None
    system_template: str | None = None
    wearable_kinds: frozenset[str] = frozenset()
    hireling_limit: int | None = None
    hireling_count: int | None = None
    limited_kinds: tuple[str, ...] | None = None
    hireling_template: str | None = None
    hiring: bool = False
    hire_fields: SafeString | None = None
    # the roll panel (the whole page), and the odds of its open forms (with "details" or "odds")
    roll_forms: list[dict] | None = None  # the rolls of the moment, the first one open
    errand_forms: list[dict] | None = None  # buying, learning, paying, resting: apart, below them
    gm_roll_forms: list[dict] | None = None
    # what a tap on the sheet opens in the roll panel, inputs filled in: a stat's roll (with "details"), an
    # item's (with "inventory", by item id: the procedure and the input that names the item)
    stat_rolls: Mapping[str, rules_base.QuickRoll] | None = None
    item_rolls: Mapping[str, tuple[str, str]] | None = None
    quick_rolls: tuple[rules_base.QuickRoll, ...] = ()  # those that ask nothing: a button each
    quick_groups: list[QuickGroup] = field(default_factory=list)  # those that ask: one form per roll
    visibility_form: Form | None = None
    odds_updates: list[dict] | None = None

    def context(self, **extra: Any) -> Context:
        """The template's context: every part, the viewer, and the view's own (error, oob...)."""
        context = {part.name: getattr(self, part.name) for part in fields(self)}
        context["system_id"] = self.character.system  # outcome words in the log and the odds
        context["personal"] = self.personal  # drawn for one viewer: their Undo in place, not its mark
        return {**context, **extra}


def sheet_view(
    user,
    seat: Seat,
    *,
    regions: tuple[str, ...] = REGIONS,
    controls: bool | None = None,
    panel: QueryDict | None = None,
    log: str = "",
    rows: tuple[Iterable[Item], Iterable[Hireling]] | None = None,
    latest_change: Change | None = None,
    personal: bool = True,
    checked: rules_base.Sheet | None = None,
) -> SheetView:
    """What the named regions show (all of them, and the roll panel, for the whole page), and nothing more.

    ``panel``: the roll panel's open forms, whose odds go out of band with the answer. ``log``: the log's
    filter asked. ``rows``: the items and hirelings, when the write read them already. ``latest_change``:
    the change the write just made (nothing reverts it yet): its Undo is offered without reading it back.
    ``personal=False``: drawn for every viewer of its kind (a pushed change), so without this viewer's Undo.
    ``checked``: the whole sheet as the write just checked it (``Written.sheet``): drawn without a check of its own
    while it holds what is drawn.
    """
    character, viewer = seat.character, seat.viewer
    wanted = set(regions)
    controls = wanted == set(REGIONS) if controls is None else controls
    can_edit = viewer.can_edit
    view = SheetView(character=character, viewer=viewer, playable=character.system in SYSTEMS, personal=personal)
    if "offers" in wanted:
        pending = character.offers.filter(status="pending")
        view.offers = list(pending.select_related("offered_by")[: OFFERS_PENDING_MAX + 1])
        if len(view.offers) > OFFERS_PENDING_MAX:  # held before the cap existed: said, never hidden
            view.offers = view.offers[:OFFERS_PENDING_MAX]
            view.offers_more = pending.count() - OFFERS_PENDING_MAX
    if personal and can_edit and wanted & {"vitals", "inventory"}:
        view.undo = _undo_offer(user, character, latest_change)
    if "log" in wanted:
        view.recent_rolls, view.log_filter = _log(user, viewer, character, log)
        view.log_filters = LOG_FILTERS
    if not view.playable or (wanted <= {"log"} and not controls):
        return view
    rules = system_for(character.system)
    # Regions that draw no item or hireling line take them from the write's checked sheet: nothing read.
    from_checked = rows is None and checked is not None and not controls and not wanted & {"inventory", "hirelings"}
    if from_checked:
        rows = ((), ())
    stored = (character.items.all(), character.hirelings.all()) if rows is None else rows
    items, hirelings = list(stored[0]), list(stored[1])
    state = dict(character.state)
    if not (can_edit or viewer.is_owner):
        for private in rules.private_fields:  # e.g. a secret faction
            state.pop(private, None)
    view.rules, view.state = rules, state
    # A sheet the rules can't read shows each row's own slots.
    view.items = [ItemRow(row, row.slots) for row in items]
    view.hirelings = [HirelingRow(row) for row in hirelings]
    if can_edit and wanted & {"inventory"}:
        view.custom_item_fields = _custom_item_fields()
    try:
        character.rules_state()  # a state saved by a newer Lantern is refused with its own sentence
        sheet = rules_base.Sheet(
            state=state,
            # likewise an item's data, a hireling's state
            items=checked.items if from_checked and checked else tuple(i.to_rules() for i in items),
            hirelings=checked.hirelings if from_checked and checked else tuple(h.to_rules() for h in hirelings),
            name=character.name,
            settings=character.rule_settings(),  # the facts, tracks and banners follow the table's settings
            table=character.table_conditions(),  # and its conditions (darkness), read from the same campaign row
        )
        # The rules' questions below then start from its state: the write's check when it is this sheet's.
        same = rules_base.checked_as(checked, sheet) if checked is not None else None
        sheet = same if same is not None else rules_base.check_sheet(rules, sheet)
    except RulesError as problem:
        # Stored before a bound existed, or written past the app: show what can be shown, and the way out.
        view.sheet_problem = unreadable_notice(problem)
        return view
    if wanted & {"vitals", "details", "inventory"}:
        view.slots = rules.slots(sheet)
    if wanted & {"vitals", "details"}:
        view.tracks, view.conditions = rules.tracks(sheet), rules.conditions(sheet)
    if "vitals" in wanted:
        money = rules.money(sheet)
        procedures = rules.procedures()
        view.harm_procedure = next((procedures[key] for key in rules_base.HARM_PROCEDURES if key in procedures), None)
        view.coins = None if money is None else rules.format_money(money)
    if "details" in wanted:
        view.banners, view.facts = rules.banners(sheet), rules.sheet_facts(sheet)
        view.system_template = system_template(character.system, "sheet")
        if can_edit:
            view.stat_rolls = {quick.stat: quick for quick in rules.quick_rolls(sheet) if quick.stat}
    if "inventory" in wanted:
        view.wearable_kinds = rules.wearable_kinds
        # a stack's true slots, as the rules count them
        lights = rules.light_sources() if can_edit else None
        warn_at = int(sheet.settings.get("light_warning", 0) or 0)
        view.items = [
            _item_row(row, rules.item_slots(sheet, item), item, lights, warn_at)
            for row, item in zip(items, sheet.items, strict=True)
        ]
        if can_edit:
            view.item_rolls = item_rolls(rules, sheet)
    if "hirelings" in wanted:
        view.hirelings = [HirelingRow(row, rules.format_money(row.wage)) for row in hirelings]
        view.hireling_limit = rules.hireling_limit(sheet)
        view.hireling_count = sum(1 for h in sheet.hirelings if rules.counts_against_limit(h))
        view.limited_kinds = rules.limited_hireling_kinds
        view.hireling_template = system_template(character.system, "hireling")
        if can_edit:
            hire = rules_base.ParamSpec("Hire", rules.hire_params(sheet))
            view.hiring, view.hire_fields = True, procedure_fields(hire, sheet, id_prefix="hire")
    if can_edit and controls:
        # Only the control open at first is drawn here; the others are a summary whose inputs and odds
        # load when first opened (characters.views.control): most are never opened on a given visit.
        base = reverse("characters:control", args=[character.pk, "-"])[:-2]  # one reverse() for all of them
        offered = [p for p in rules.procedures().values() if viewer.is_gm or not p.gm_only]
        players = [p for p in offered if not p.gm_only and p.key not in rules_base.BOUGHT_IN_THE_PICKER]
        everyday = [p for p in players if p.key not in rules_base.ERRANDS]
        view.roll_forms = [
            roll_control(rules, p, sheet, character, viewer.is_gm, is_open=True) if n == 0 else _closed_control(p, base)
            for n, p in enumerate(everyday)
        ]
        view.errand_forms = [_closed_control(p, base) for p in players if p.key in rules_base.ERRANDS]
        # The GM's rolls (NPC reactions, morale...) stand apart from the player's.
        view.gm_roll_forms = [_closed_control(p, base) for p in offered if p.gm_only]
        quick = rules.quick_rolls(sheet)
        view.quick_rolls = tuple(q for q in quick if not q.asks)
        view.quick_groups = quick_groups(character, rules, sheet, quick)
        view.visibility_form = VisibilityForm()
    # Only the roll panel (its GM-only rolls and inputs) asks who the GM is.
    if can_edit and panel is not None and wanted & {"details", "odds"}:
        view.odds_updates = _panel_odds(character, rules, sheet, panel, viewer.is_gm)
    return view


def _item_row(row: Item, slots: int, item: rules_base.Item, lights: Lights | None, warn_at: int) -> ItemRow:
    left = remaining(item, lights) if lights is not None else None
    low = left is not None and lit(item) and 0 < left <= warn_at
    return ItemRow(row, slots, left, low)


@cache
def _custom_item_fields() -> SafeString:
    """The empty "add your own item" form is the same on every sheet: drawn once per process."""
    return render_to_string("_form.html", {"form": CustomItemForm(auto_id="id_item_%s")})


def reverted_by(change: Change) -> Change | None:
    try:
        return change.reverted_by
    except Change.DoesNotExist:
        return None


def _undo_offer(user, character: Character, latest: Change | None) -> dict | None:
    """The sheet offers Undo for the viewer's own latest change, for a few minutes, if it can be put back.
    ``latest``: the change the write just made, when it did (nothing reverts it yet)."""
    if latest is not None:  # just made: nothing reverts it yet
        return offered_undo(user, latest, reverted=False)
    latest = character.changes.select_related("reverted_by").first()
    return offered_undo(user, latest, reverted=latest is not None and reverted_by(latest) is not None)


def offered_undo(user, latest: Change | None, *, reverted: bool) -> dict | None:
    """The Undo offered for the character's latest change (``reverted``: since put back), if it is this viewer's."""
    if latest is None or latest.by_id != user.pk or not latest.revertible or reverted:
        return None
    if latest.at < timezone.now() - UNDO_WINDOW:
        return None
    region = "vitals" if "state" in latest.before or "state" in latest.after else "inventory"
    return {"change": latest, "region": region}


def _panel_odds(character: Character, rules, sheet, panel: QueryDict, gm: bool) -> list[dict]:
    """The odds of each open form of the roll panel, for the inputs it holds now (one request for all)."""
    updates = []
    for key in dict.fromkeys(panel.getlist("panel")):
        procedure = rules.procedures().get(key)
        if procedure is None or (procedure.gm_only and not gm):
            continue
        try:
            shown = odds_shown(character, procedure, sheet, raw_params(procedure, sheet, panel, gm=gm, prefixed=True))
        except RulesError as problem:
            shown = OddsShown(error=str(problem), settled=isinstance(problem, Settled))
        updates.append({"procedure": procedure, **vars(shown)})
    return updates


@dataclass(frozen=True)
class QuickButton:
    """One button of a quick group: its roll, the one input its button posts (name, value), its odds now."""

    quick: rules_base.QuickRoll
    name: str
    value: str
    odds: rules_base.Odds | None


@dataclass(frozen=True)
class QuickGroup:
    """The quick rolls of one procedure that ask yes/no questions (``QuickRoll.asks``): one form, its toggles
    (name as posted, label, ticked) and a button per roll, each with its odds at the toggles as they stand."""

    procedure: str
    toggles: tuple[tuple[str, str, bool], ...]
    buttons: tuple[QuickButton, ...]


def quick_groups(
    character: Character, rules, sheet: rules_base.Sheet, quick: Iterable[rules_base.QuickRoll], asked=None
) -> list[QuickGroup]:
    """The asking quick rolls, a form per procedure. ``asked``: the toggles as the player set them (a QueryDict
    of ``<procedure>-<input>`` as the form sends them), else as the rules tick them at first. Each roll's one
    input that is not asked (the attribute) rides on its button, so the form works without JavaScript."""
    by_procedure: dict[str, list[rules_base.QuickRoll]] = {}
    for q in quick:
        if q.asks:
            by_procedure.setdefault(q.procedure, []).append(q)
    groups = []
    for key, rolls in by_procedure.items():
        procedure = rules.procedures().get(key)
        if procedure is None:
            continue
        labels = {p.name: p.label for p in procedure.params(sheet)}
        first = rolls[0]
        ticked = {
            name: bool(first.params.get(name)) if asked is None else f"{key}-{name}" in asked for name in first.asks
        }
        buttons = []
        for q in rolls:
            (name, value), *_ = [(n, v) for n, v in q.params.items() if n not in q.asks] or [("", "")]
            shown = odds_shown(character, procedure, sheet, {**q.params, **ticked})
            buttons.append(QuickButton(q, f"{key}-{name}" if name else "", str(value), shown.odds))
        toggles = tuple((f"{key}-{name}", labels.get(name, name), ticked[name]) for name in first.asks)
        groups.append(QuickGroup(key, toggles, tuple(buttons)))
    return groups


@dataclass(frozen=True)
class OddsShown:
    """A roll's odds box: its exact odds, or why it has none (``settled``: the sheet's state answers it), and the
    conditions that change them (the chips beside them)."""

    odds: rules_base.Odds | None = None
    error: str = ""
    settled: bool = False
    no_dice: bool = False  # a procedure that never rolls: applied as set
    chips: tuple[ConditionChip, ...] = ()


def odds_shown(character: Character, procedure, sheet: rules_base.Sheet, raw: Mapping[str, Any]) -> OddsShown:
    """The odds of one roll of this character's at these inputs (its defaults for ``{}``), with the conditions
    that change them: what every odds box of a sheet, a request's prompt and the GM's request form shows."""
    try:
        params = services.odds_params(character, procedure, sheet, raw)
        odds = procedure.odds(sheet, params)
    except RulesError as problem:
        return OddsShown(error=str(problem), settled=isinstance(problem, Settled))
    if odds is None:
        return OddsShown(no_dice=True)
    rules = SYSTEMS.get(character.system)
    chips = condition_chips(rules, procedure, sheet, params, odds) if rules is not None else ()
    return OddsShown(odds, chips=chips)


def unreadable_notice(problem: RulesError) -> str:
    return f"This sheet holds numbers the rules can't read: {problem} Ask the GM to fix it, or re-import the character."


def roll_control(rules, procedure, sheet, character: Character, gm: bool, *, is_open: bool = False) -> dict:
    """One roll control drawn in full: its inputs, at their defaults, and their odds."""
    table = []
    if character.campaign_id and any(p.kind == "character" for p in procedure.params(sheet)):
        # Not through the related manager: it sets .campaign on each row, a query per row with only().
        others = Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk)
        table = list(others.only("pk", "name"))
    fields = procedure_fields(procedure, sheet, table_characters=table, gm=gm)
    # A roll that may target an NPC (an attack) lists the running fight's NPCs still standing: what hits lands
    # on the one picked (campaigns.session.hits).
    aims = bool(character.campaign_id) and procedure.key in rules.npc_target_procedures()
    npcs = list(fight_npcs(character.campaign_id)) if aims and character.campaign_id else []
    shown = odds_shown(character, procedure, sheet, {})
    # what the character's state already answers ("The dead take no more damage."), said as such; another refusal
    # waits for the inputs (its box shows no odds). A procedure that never rolls: its box says so, its button "Apply".
    settled = shown.error if shown.settled else ""
    odds, no_dice = shown.odds, shown.no_dice
    # An errand's button says what it does ("Rest"); a roll's reads "Apply" while no dice decide it, else "Roll"
    # (following the odds box, in CSS).
    verb = rules_base.ERRANDS.get(procedure.key, "")
    control = {
        "procedure": procedure,
        "fields": fields,
        "odds": odds,
        "settled": settled,
        "no_dice": no_dice,
        "chips": shown.chips,  # the conditions that change these odds (the table's darkness, a status)
        "open": is_open,
        "verb": verb,
        "gm": gm and character.campaign_id,
        # it lists the others at the table (and the fight's NPCs), so a sheet body drawn with it is kept by their
        # names (region_cache)
        "party": bool(table) or aims,
        "npcs": npcs,
    }
    hand = hand_dice_offer(character, gm)
    if hand:
        control.update(hand=hand, needs=needed_words(procedure, sheet, {}))
    return control


def fight_npcs(campaign_id: int):
    """The NPCs of the table's running fight still standing, as a roll form lists them (pk and name)."""
    return table.fight_npcs(campaign_id)


def hand_dice_offer(character: Character, gm: bool) -> str:
    """Whether the roll forms offer typed-in dice to this viewer: "" no, "offered", or "first" (the table rolls by
    hand: the faces field comes open). Away from a table the owner runs their own game and may."""
    campaign = character.campaign
    if campaign is None:
        return "offered"
    if not campaign.allows_hand_dice(gm=gm):
        return ""
    return "first" if campaign.hand_dice == campaign.HandDice.EVERYONE else "offered"


def needed_words(procedure, sheet, raw: Mapping[str, Any]) -> str:
    """The dice a roll asks for at these inputs (its defaults for a control just drawn), in words."""
    try:
        params = rules_base.check_params(procedure, sheet, raw)
    except RulesError:
        return ""
    return dice_needed(lambda source: procedure.roll(sheet, params, source)).words


# The procedures a carried thing is rolled with: tapping a weapon opens its attack with the weapon picked.
ITEM_PROCEDURES = ("attack", "blast")


def item_rolls(rules, sheet: rules_base.Sheet) -> dict[str, tuple[str, str]]:
    """For each item some roll names in an input (a weapon in the attack's), that roll and that input: read from
    the procedures' own choices, so no system lists its weapons twice. A choice names an item when its value is the
    item's key and its words hold the item's name (a die size "4" is not item 4)."""
    names = {rules_base.entry_key(item, n): item.name.casefold() for n, item in enumerate(sheet.items)}
    procedures = rules.procedures()
    found: dict[str, tuple[str, str]] = {}
    for key in ITEM_PROCEDURES:
        procedure = procedures.get(key)
        if procedure is None or procedure.gm_only:
            continue
        for param in procedure.params(sheet):
            if param.kind not in ("choice", "multichoice") or param.name == "second":  # the off hand: the first
                continue
            for value, words in param.choices:
                name = names.get(str(value))
                if name and name in str(words).casefold():
                    found.setdefault(str(value), (key, param.name))
    return found


def _closed_control(procedure, base: str) -> dict:
    """A roll control drawn as its summary: its inputs and odds load from its URL when it is first opened."""
    return {"procedure": procedure, "lazy": True, "url": f"{base}{quote(procedure.key)}/"}


def _log(user, viewer: Viewer, character: Character, wanted: str) -> tuple[list[Roll], str]:
    """The table's rolls this viewer may see, newest first: everyone's, this character's, or the GM's."""
    log_filter = wanted if wanted in dict(LOG_FILTERS) else "party"
    if character.campaign_id is None or log_filter == "mine":
        log_filter = "mine" if character.campaign_id is None else log_filter
        rolls = rolls_visible_to(user).filter(character=character)
    else:  # the viewer's seat at the table is known: the same rows, without asking it again
        rolls = rolls_at_table(user, character.campaign_id, viewer.role)
    if log_filter == "gm" and character.campaign_id is not None:  # away from a table the filter is "mine"
        rolls = rolls.filter(roller_id__in=table.gm_ids(character.campaign_id))
    rolls = rolls.select_related("roller", "character", "voided_by")
    return list(rolls[:15]), log_filter


# --- the equipment picker ----------------------------------------------------------------------


def picks(character: Character, rules, text: str) -> Context:
    """The matching rows grouped by table, each marked with what it takes: the slots it needs and whether
    they are free, its price and whether the purse holds it. The sheet and its slots are read once; a row
    costs one ``item_slots`` call (a product), so a few hundred rows stay instant."""
    try:
        sheet = character.checked_sheet()
    except RulesError as problem:
        return {"picker_error": str(problem), "pick_groups": []}
    entries = catalogue_matching(character.system, text, PICKER_ROWS)
    summary = rules.slots(sheet)
    room = None if summary.hard_limit is None else max(0, summary.hard_limit - summary.used)
    money = rules.money(sheet)
    crossing = _Crossing(rules, sheet, summary)
    groups: dict[str, list[dict]] = {}
    for entry in entries[:PICKER_ROWS]:
        group = entry.group or entry.get_kind_display()
        groups.setdefault(group, []).append(_pick(rules, sheet, entry, room, money, crossing))
    return {
        "pick_groups": list(groups.items()),
        "more_picks": len(entries) > PICKER_ROWS,
        "purse": None if money is None else rules.format_money(money),
        "room": room,
        "slots": summary,
        "free_slots": max(0, summary.maximum - summary.used),
    }


class _Crossing:
    """What taking ``need`` more slots would bring, as the rules say it ("Over your slots: HP count as 0."), when it
    goes past the slots a character carries freely but not past the carry limit: said on the row, before the
    purchase. Asked of the rules once for each number of slots, not once for each row."""

    def __init__(self, rules, sheet: rules_base.Sheet, summary: rules_base.SlotSummary) -> None:
        self.rules, self.sheet, self.summary = rules, sheet, summary
        self.said: dict[int, str] = {}

    def warning(self, item: rules_base.Item, need: int) -> str:
        after = self.summary.used + need
        if need <= 0 or after <= self.summary.maximum:
            return ""
        if need not in self.said:
            heavier = replace(self.sheet, items=(*self.sheet.items, item))
            try:
                words = " ".join(self.rules.slots(heavier).consequences)
            except RulesError:
                words = ""
            self.said[need] = f"Takes you to {after}/{self.summary.maximum} slots" + (f": {words}" if words else ".")
        return self.said[need]


def _pick(
    rules, sheet: rules_base.Sheet, entry: CatalogueItem, room: int | None, money: int | None, crossing: _Crossing
) -> dict:
    carried = entry.kind != Item.Kind.SERVICE
    data = entry.data if isinstance(entry.data, dict) else {}
    item = rules_base.Item(name=entry.name, kind=entry.kind, slots=entry.slots, data=data)
    need = rules.item_slots(sheet, item) if carried else 0
    no_room = ""
    if carried and room is not None and need > room:
        no_room = f"No room: it needs {need} slot{'s' if need != 1 else ''}, {room} left."
    price = "" if entry.cost is None else rules.format_money(entry.cost)
    if entry.cost is None:
        no_buy = "No price: ask your GM."
    elif money is not None and entry.cost > money:
        no_buy = f"You have {rules.format_money(money)}."
    else:
        no_buy = ""
    words = [price or "no price", f"{need} slot{'s' if need != 1 else ''}" if carried else "", item_notes(data)]
    return {
        "entry": entry,
        "line": " · ".join(word for word in words if word),
        "price": price,
        "carried": carried,
        "no_room": no_room,
        "no_buy": no_buy,
        "over": crossing.warning(item, need) if carried and not no_room else "",
    }
