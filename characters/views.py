"""Character pages: HTTP only. Authorise through selectors, change through services, render fragments."""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import Membership
from campaigns.selectors import campaigns_of, membership_of
from characters import history as change_history
from characters import services
from characters.controls import procedure_fields
from characters.forms import (
    AdjustForm,
    CatalogueAddForm,
    CatalogueSearchForm,
    CustomItemForm,
    ImportForm,
    ItemUpdateForm,
    RenameForm,
    RevertForm,
    VisibilityForm,
    details_form,
    procedure_form,
    raw_params,
)
from characters.models import OFFERS_PENDING_MAX, CatalogueItem, Change, Character, Item, Roll
from characters.selectors import (
    catalogue_matching,
    character_for,
    characters_editable_by,
    rolls_at_table,
    rolls_visible_to,
)
from characters.system_templates import system_template
from characters.templatetags.lantern import item_notes
from characters.transfer import export_character, import_character, parse_document
from config.converters import parse_id
from config.htmx import HtmxHttpRequest
from rules import SYSTEM_NAMES, SYSTEMS, RulesError, system_for
from rules import base as rules_base

REGIONS = ("vitals", "details", "inventory", "hirelings", "log")
# "odds": the roll panel's open odds boxes, refreshed in one request (out of band) when a change that
# touches no other region moves them (a hireling hired); a state change brings them with "details".
LIVE_PARTS = (*REGIONS, "odds")


# --- reading ---------------------------------------------------------------------------------


def character_list(request: HtmxHttpRequest) -> HttpResponse:
    characters = Character.objects.filter(owner=request.user).select_related("campaign")
    context = {
        "characters": characters,
        "playable": [(key, SYSTEM_NAMES[key]) for key in SYSTEMS],
        "campaigns": campaigns_of(request.user).filter(system__in=list(SYSTEMS)),
        "import_form": ImportForm(),
    }
    return render(request, "characters/list.html", context)


def sheet(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = _visible(request, pk)
    return render(request, "characters/sheet.html", sheet_context(request, character))


@require_GET
def region(request: HtmxHttpRequest, pk: int, name: str) -> HttpResponse:
    """One live region of the sheet, built alone, for htmx to re-fetch when the stream says it changed.

    "details" and "odds" also answer with the odds of the roll panel's open forms (sent along by htmx).
    """
    if name not in LIVE_PARTS:
        raise Http404
    character = _visible(request, pk)
    context = sheet_context(request, character, regions=(name,), panel=request.GET)
    if name == "odds":
        return render(request, "characters/_panel_odds.html", context)
    return render(request, f"characters/sheet.html#{name}", context)


def sheet_context(
    request,
    character: Character,
    *,
    regions: tuple[str, ...] = REGIONS,
    controls: bool | None = None,
    panel=None,
    can_edit: bool | None = None,
    just_made: Change | None = None,
    **extra,
) -> dict:
    """What the named regions show (all of them, and the roll panel, for the whole page), and nothing more.

    Queries stay fixed whatever the size of the inventory. ``panel``: the roll panel's open forms, whose
    odds go out of band with the answer. ``can_edit``: known already (a write view found the character
    among those the user edits), else asked.
    """
    wanted = set(regions)
    controls = wanted == set(REGIONS) if controls is None else controls
    if can_edit is None:
        can_edit = getattr(character, "can_edit", None)  # character_for knows it already
    if can_edit is None:
        can_edit = character.can_edit
    # Only the roll panel (its GM-only rolls and inputs) asks who the GM is.
    panel_odds = can_edit and panel is not None and bool(wanted & {"details", "odds"})
    context = {
        "character": character,
        "can_edit": can_edit,
        "is_gm": acts_as_gm(request.user, character) if can_edit and (controls or panel_odds) else False,
        "playable": character.system in SYSTEMS,
        "system_id": character.system,  # outcome words in the log and the odds
        "regions": REGIONS,
        **extra,
    }
    if "vitals" in wanted:
        pending = character.offers.filter(status="pending")
        context["offers"] = list(pending.select_related("offered_by")[: OFFERS_PENDING_MAX + 1])
        if len(context["offers"]) > OFFERS_PENDING_MAX:  # held before the cap existed: said, never hidden
            context["offers"] = context["offers"][:OFFERS_PENDING_MAX]
            context["offers_more"] = pending.count() - OFFERS_PENDING_MAX
    if can_edit and wanted & {"vitals", "inventory"}:
        context["undo"] = _undo_offer(request.user, character, just_made)
    if "log" in wanted:
        context.update(_log_context(request, character))
    if not context["playable"] or wanted <= {"log"}:
        return context
    rules = system_for(character.system)
    items = list(character.items.all())
    hirelings = list(character.hirelings.all())
    state = dict(character.state)
    if not (can_edit or character.owner_id == request.user.pk):
        for field in rules.private_fields:  # e.g. a secret faction
            state.pop(field, None)
    sheet = rules_base.Sheet(
        state=state,
        items=tuple(i.to_rules() for i in items),
        hirelings=tuple(h.to_rules() for h in hirelings),
        name=character.name,
        settings=character.rule_settings(),  # the facts, tracks and banners follow the table's settings
        table=character.table_conditions(),  # and its conditions (darkness), read from the same campaign row
    )
    context.update(rules=rules, state=state, items=items, hirelings=hirelings)
    for row in items:
        row.slots_used = None  # a sheet the rules can't read shows each row's own slots
    if can_edit and wanted & {"inventory"}:
        context["custom_item_fields"] = _custom_item_fields()
    try:
        sheet = rules_base.check_sheet(rules, sheet)  # the rules' questions below then start from its state
    except RulesError as problem:
        # Stored before a bound existed, or written past the app: show what can be shown, and the way out.
        context["sheet_problem"] = unreadable_notice(problem)
        return context
    if wanted & {"vitals", "details", "inventory"}:
        context["slots"] = rules.slots(sheet)
    if wanted & {"vitals", "details"}:
        context.update(tracks=rules.tracks(sheet), conditions=rules.conditions(sheet))
    if "vitals" in wanted:
        money = rules.money(sheet)
        context["coins"] = None if money is None else rules.format_money(money)
    if "details" in wanted:
        context.update(
            banners=rules.banners(sheet),
            facts=rules.sheet_facts(sheet),
            system_template=system_template(character.system, "sheet"),
        )
    if "inventory" in wanted:
        context["wearable_kinds"] = rules.wearable_kinds
        for row, item in zip(items, sheet.items, strict=True):  # a stack's true slots, as the rules count them
            row.slots_used = rules.item_slots(sheet, item)
    if "hirelings" in wanted:
        for row in hirelings:  # money the system's way, for the hireling's line
            row.wage_text = rules.format_money(row.wage)
        context.update(
            hireling_limit=rules.hireling_limit(sheet),
            hireling_count=sum(1 for h in sheet.hirelings if rules.counts_against_limit(h)),
            limited_kinds=rules.limited_hireling_kinds,
            hireling_template=system_template(character.system, "hireling"),
        )
        if can_edit:
            hire = rules_base.ParamSpec("Hire", rules.hire_params(sheet))
            context.update(hiring=True, hire_fields=procedure_fields(hire, sheet, id_prefix="hire"))
    if can_edit and controls:
        # Only the control open at first is drawn here; the others are a summary whose inputs and odds
        # load when first opened (characters.views.control): most are never opened on a given visit.
        base = reverse("characters:control", args=[character.pk, "-"])[:-2]  # one reverse() for all of them
        procedures = [p for p in rules.procedures().values() if context["is_gm"] or not p.gm_only]
        players = [p for p in procedures if not p.gm_only]
        context["roll_forms"] = [
            _roll_control(rules, p, sheet, character, context["is_gm"], is_open=True)
            if n == 0
            else _closed_control(p, base)
            for n, p in enumerate(players)
        ]
        # The GM's rolls (NPC reactions, morale...) stand apart from the player's.
        context["gm_roll_forms"] = [_closed_control(p, base) for p in procedures if p.gm_only]
        context["quick_rolls"] = rules.quick_rolls(sheet)
        context["visibility_form"] = VisibilityForm()
    if panel_odds:
        context["odds_updates"] = _panel_odds(character, rules, sheet, panel, context["is_gm"])
    return context


@cache
def _custom_item_fields() -> SafeString:
    """The empty "add your own item" form is the same on every sheet: drawn once per process."""
    return render_to_string("_form.html", {"form": CustomItemForm(auto_id="id_item_%s")})


UNDO_WINDOW = timedelta(minutes=10)


def _undo_offer(user, character: Character, just_made: Change | None = None) -> dict | None:
    """The sheet offers Undo for the viewer's own latest change, for a few minutes, if it can be put back.

    ``just_made``: the change the write being answered made (its service returned it): nothing reverts it yet."""
    latest = just_made
    if just_made is None:
        latest = character.changes.select_related("reverted_by").first()
    if latest is None or latest.by_id != user.pk or not latest.revertible:
        return None
    if just_made is None and _reverted_by(latest) is not None:
        return None
    if latest.at < timezone.now() - UNDO_WINDOW:
        return None
    region = "vitals" if "state" in latest.before or "state" in latest.after else "inventory"
    return {"change": latest, "region": region}


def _panel_odds(character: Character, rules, sheet, panel, gm: bool) -> list[dict]:
    """The odds of each open form of the roll panel, for the inputs it holds now (one request for all)."""
    updates = []
    for key in dict.fromkeys(panel.getlist("panel")):
        procedure = rules.procedures().get(key)
        if procedure is None or (procedure.gm_only and not gm):
            continue
        try:
            odds = services.character_odds(
                character, key, raw_params(procedure, sheet, panel, gm=gm, prefixed=True), sheet=sheet
            )
            error = ""
        except RulesError as problem:
            odds, error = None, str(problem)
        updates.append({"procedure": procedure, "odds": odds, "error": error})
    return updates


def unreadable_notice(problem: RulesError) -> str:
    return f"This sheet holds numbers the rules can't read: {problem} Ask the GM to fix it, or re-import the character."


def acts_as_gm(user, character: Character) -> bool:
    """The campaign's GM; for a character at no table, its owner runs their own game."""
    if getattr(character, "viewer_id", None) == user.pk:  # character_for asked it of this viewer already
        return character.viewer_is_gm
    if character.campaign_id is None:
        return character.owner_id == user.pk
    membership = membership_of(user, character.campaign)
    return bool(membership and membership.is_gm)


def _roll_control(rules, procedure, sheet, character: Character, gm: bool, *, is_open: bool = False) -> dict:
    """One roll control drawn in full: its inputs, at their defaults, and their odds."""
    table = []
    if character.campaign_id and any(p.kind == "character" for p in procedure.params(sheet)):
        # Not through the related manager: it sets .campaign on each row, a query per row with only().
        others = Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk)
        table = list(others.only("pk", "name"))
    fields = procedure_fields(procedure, sheet, table_characters=table, gm=gm)
    try:
        odds = procedure.odds(sheet, rules_base.check_params(procedure, sheet, {}))
    except RulesError:
        odds = None
    # Whether the button reads "Apply" (no dice decide it) or "Roll" follows the odds box, in CSS.
    return {"procedure": procedure, "fields": fields, "odds": odds, "open": is_open}


def _closed_control(procedure, base: str) -> dict:
    """A roll control drawn as its summary: its inputs and odds load from its URL when it is first opened."""
    return {"procedure": procedure, "lazy": True, "url": f"{base}{quote(procedure.key)}/"}


LOG_FILTERS = (("party", "Everyone"), ("mine", "This character"), ("gm", "The GM"))


def _log_context(request, character: Character) -> dict:
    """The table's rolls this viewer may see, newest first: everyone's, this character's, or the GM's."""
    wanted = request.GET.get("log") or request.POST.get("log", "")  # a roll's answer keeps the log's filter
    log_filter = wanted if wanted in dict(LOG_FILTERS) else "party"
    if character.campaign_id is None or log_filter == "mine":
        log_filter = "mine" if character.campaign_id is None else log_filter
        rolls = rolls_visible_to(request.user).filter(character=character)
    elif getattr(character, "viewer_id", None) == request.user.pk:  # character_for knows the viewer's seat
        rolls = rolls_at_table(request.user, character.campaign_id, character.viewer_role)
    else:
        rolls = rolls_visible_to(request.user).filter(campaign_id=character.campaign_id)
    if log_filter == "gm":
        gms = Membership.objects.filter(campaign_id=character.campaign_id, role=Membership.Role.GM)
        rolls = rolls.filter(roller_id__in=gms.values("user_id"))
    rolls = rolls.select_related("roller", "character")
    return {"recent_rolls": list(rolls[:15]), "log_filter": log_filter, "log_filters": LOG_FILTERS}


# --- writing ---------------------------------------------------------------------------------


def _visible(request, pk: int) -> Character:
    """The character, if this viewer may see it (404 otherwise), with what they may do to it."""
    character = character_for(request.user, pk)
    if character is None:
        raise Http404("No character here.")
    return character


def _editable(request, pk: int) -> Character:
    character = character_for(request.user, pk, edit=True)
    if character is None:
        raise Http404("No character here.")
    return character


def _respond(
    request,
    character: Character,
    primary: str,
    *,
    error: str = "",
    extra: dict | None = None,
    written: services.Written | None = None,
    fresh: bool = False,
):
    """htmx: the region the form targets, plus the other regions the write changed (``written``: what the
    service returned) out of band, and nothing else; a plain POST goes back where it came from. ``fresh``: show
    the row the write saved as it left it (and its change's Undo), rather than read it again."""
    changed = written.regions if written is not None and written.character.pk == character.pk else frozenset()
    fresh_row = written.character if fresh and written is not None else None
    _reload(character, fresh_row)
    if fresh_row is not None and written is not None:
        extra = {**(extra or {}), "just_made": written.change}
    if not request.htmx:
        if error:
            context = sheet_context(request, character, error=error, error_region=primary, **(extra or {}))
            return render(request, "characters/sheet.html", context, status=400)
        back = request.POST.get("next", "")
        if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            return redirect(back)  # e.g. a party save made from the GM's table goes back to the table
        return redirect(character)
    others = () if error else tuple(name for name in REGIONS if name in changed and name != primary)
    context = sheet_context(
        request,
        character,
        regions=(primary, *others),
        error=error,
        error_region=primary,
        can_edit=True,  # _editable found it
        **(extra or {}),
    )
    parts = [render(request, f"characters/sheet.html#{primary}", context).content.decode()]
    parts += [
        render(request, f"characters/sheet.html#{name}", {**context, "oob": True}).content.decode() for name in others
    ]
    # 422 for a refused change: htmx is configured (static/js/lantern.js) to swap it so the message shows.
    return HttpResponse("".join(parts), status=422 if error else 200)


def _reload(character: Character, fresh: Character | None = None) -> None:
    """The character's own columns as the write left them; its campaign and owner (which no sheet write
    changes) stay loaded, where a plain refresh_from_db() would drop them and read them again.

    ``fresh``: the row the service saved (read under its lock): copied rather than read again, with the
    items and hirelings it read along, if any (``services._lock(with_rows=True)``: the write left them)."""
    if fresh is None or fresh.pk != character.pk:
        try:
            character.refresh_from_db(fields=_OWN_COLUMNS)
        except Character.DoesNotExist:  # deleted since the write: as if it had never been there
            raise Http404("No character here.") from None
        return
    for column in _OWN_COLUMNS:
        setattr(character, column, getattr(fresh, column))
    character._prefetched_objects_cache = dict(getattr(fresh, "_prefetched_objects_cache", {}))


_OWN_COLUMNS = [f.attname for f in Character._meta.concrete_fields if not f.is_relation and not f.primary_key]


@require_POST
def adjust(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = _editable(request, pk)
    form = AdjustForm(request.POST)
    if not form.is_valid():
        return _respond(request, character, "vitals", error="Change a track by a whole number between -1000 and 1000.")
    try:
        written = services.character_adjust(
            character_id=character.pk, key=form.cleaned_data["key"], delta=form.cleaned_data["delta"], by=request.user
        )
    except RulesError as error:
        return _respond(request, character, "vitals", error=str(error))
    return _respond(request, character, "vitals", written=written, fresh=True)


def _procedure_of(request, pk: int, key: str):
    """The character this viewer edits, its procedure ``key`` and whether the viewer is its GM; 404 for an
    unknown procedure or a GM-only one asked by a player (odds and controls say no more than that)."""
    character = _editable(request, pk)
    proc = _rules_or_404(character).procedures().get(key)
    gm = acts_as_gm(request.user, character)
    if proc is None or (proc.gm_only and not gm):
        raise Http404
    return character, proc, gm


@require_GET
def odds(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """The exact odds for the modifiers currently picked; re-fetched whenever a toggle changes."""
    character, proc, gm = _procedure_of(request, pk, procedure)
    try:
        sheet = character.checked_sheet()
        params = raw_params(proc, sheet, request.GET, gm=gm)
        result = services.character_odds(character, procedure, params, sheet=sheet)  # read and checked once
        error = ""
    except RulesError as problem:
        result, error = None, str(problem)
    context = {"odds": result, "error": error, "procedure": proc, "system_id": character.system}
    return render(request, "characters/_odds.html", context, status=200 if not error or request.htmx else 400)


@require_GET
def control(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """One roll control of the sheet, drawn when first opened: its inputs, odds box, button and result box
    for htmx to put in the placeholder; for a plain GET (no JavaScript), a small page holding it.

    Who may see it is who may make the roll: the character's editors, and the GM for the GM's rolls."""
    character, proc, gm = _procedure_of(request, pk, procedure)
    context: dict[str, Any] = {"character": character, "system_id": character.system}
    try:
        sheet = character.checked_sheet()
    except RulesError as problem:
        context.update(error=str(problem), control={"procedure": proc, "open": True})
        status = 422 if request.htmx else 400
    else:
        context["control"] = _roll_control(_rules_or_404(character), proc, sheet, character, gm, is_open=True)
        status = 200
    if request.htmx:
        return render(request, "characters/_roll_control.html#control-body", context, status=status)
    context.update(procedure=proc, controls=[context["control"]])
    return render(request, "characters/control.html", context, status=status)


@require_POST
def roll(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    character = _editable(request, pk)
    rules = _rules_or_404(character)
    proc = rules.procedures().get(procedure)
    gm = acts_as_gm(request.user, character)
    if proc is None:
        return _roll_answer(request, character, error=f"{rules.name} has no roll called {procedure!r}.")
    if proc.gm_only and not gm:
        return _roll_answer(request, character, error=f"Only the GM makes the {proc.label} roll.")
    meta = VisibilityForm(request.POST)
    if not meta.is_valid():
        return _roll_answer(request, character, error="Pick who may see this roll.")
    try:
        written = services.character_roll(
            character_id=character.pk,
            procedure=procedure,
            params=raw_params(proc, character.checked_sheet(), request.POST, gm=gm),
            by=request.user,
            visibility=meta.cleaned_data["visibility"] or Roll.Visibility.PUBLIC,
            expected_version=meta.cleaned_data["version"],
        )
    except RulesError as error:
        return _roll_answer(request, character, error=str(error))
    return _roll_answer(request, character, written)


def _roll_answer(
    request, character: Character, written: services.Written | None = None, *, error: str = ""
) -> HttpResponse:
    """htmx: the result where the roll was made and, for the sheet's own forms, the regions it changed out of
    band (the log with the filter the page sends along); a plain POST goes back."""
    if not request.htmx:
        return _respond(request, character, "log", error=error)
    context = {"roll": written.row if written is not None else None, "error": error, "system_id": character.system}
    parts = [render(request, "characters/_roll_result.html", context).content.decode()]
    changed = written.regions if written is not None else frozenset()
    if "panel" in request.POST and not error:
        _reload(character)
        others = tuple(name for name in REGIONS if name in changed)
        if others:
            region_context = sheet_context(request, character, regions=others)
            parts += [
                render(request, f"characters/sheet.html#{name}", {**region_context, "oob": True}).content.decode()
                for name in others
            ]
    return HttpResponse("".join(parts), status=422 if error else 200)


PICKER_ROWS = 60  # one answer of the equipment picker: enough to browse a table, fast at any catalogue size


@require_GET
def catalogue(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The equipment picker's matches for what was typed: a fragment for htmx, a page without JavaScript."""
    context = _picker_context(_editable(request, pk), request.GET)
    if request.htmx:
        return render(request, "characters/_catalogue_results.html", context)
    return render(request, "characters/catalogue.html", context, status=400 if "picker_error" in context else 200)


def _picker_context(character: Character, data) -> dict:
    """What the picker shows for the search in ``data`` (its ``q``); a search it can't read lists everything."""
    rules = _rules_or_404(character)
    form = CatalogueSearchForm(data)
    text = form.cleaned_data["q"] if form.is_valid() else ""
    context = {"character": character, "rules": rules, "q": text, **_picks(character, rules, text)}
    if not form.is_valid():
        context["picker_error"] = _first_error(form)
    return context


def _picks(character: Character, rules, text: str) -> dict:
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
    groups: dict[str, list[dict]] = {}
    for entry in entries[:PICKER_ROWS]:
        group = entry.group or entry.get_kind_display()
        groups.setdefault(group, []).append(_pick(rules, sheet, entry, room, money))
    return {
        "pick_groups": list(groups.items()),
        "more_picks": len(entries) > PICKER_ROWS,
        "purse": None if money is None else rules.format_money(money),
        "room": room,
    }


def _pick(rules, sheet: rules_base.Sheet, entry: CatalogueItem, room: int | None, money: int | None) -> dict:
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
    }


@require_POST
def item_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = _editable(request, pk)
    from_picker = request.htmx and "picker" in request.POST
    try:
        if "entry" in request.POST:
            form = CatalogueAddForm(request.POST)
            if not form.is_valid():
                raise RulesError("Pick an item and a quantity between 1 and 100.")
            written = services.item_add_from_catalogue(
                character_id=character.pk,
                entry_id=form.cleaned_data["entry"],
                by=request.user,
                buy=form.cleaned_data["buy"],
                quantity=form.cleaned_data["quantity"],
            )
            done = written.change.what if from_picker and written.change is not None else ""
        else:
            form = CustomItemForm(request.POST)
            if not form.is_valid():
                raise RulesError(_first_error(form))
            data = form.cleaned_data
            written = services.item_add(
                character_id=character.pk,
                item=rules_base.Item(
                    name=data["name"], kind=data["kind"], slots=data["slots"], quantity=data["quantity"]
                ),
                by=request.user,
            )
            done = ""
    except RulesError as error:
        if from_picker:
            return _picker_answer(request, character, error=str(error))
        return _respond(request, character, "inventory", error=str(error))
    if from_picker:
        return _picker_answer(request, character, done=done or "", written=written)
    return _respond(request, character, "inventory", written=written)


def _picker_answer(
    request, character: Character, *, done: str = "", error: str = "", written: services.Written | None = None
) -> HttpResponse:
    """A take or a buy made from the picker: its sentence where the picker is, and, out of band, the regions
    it changed (``written``: the inventory, the purse) and the picker's rows, whose room and prices moved with
    them."""
    changed = written.regions if written is not None else frozenset()
    _reload(character)
    status = {"done": done, "error": error}
    parts = [render(request, "characters/_catalogue_status.html", status).content.decode()]
    if not error:
        others = tuple(name for name in REGIONS if name in changed)
        context = sheet_context(request, character, regions=others, oob=True)
        parts += [render(request, f"characters/sheet.html#{name}", context).content.decode() for name in others]
        picks = {**_picker_context(character, request.POST), "oob": True}
        parts.append(render(request, "characters/_catalogue_results.html", picks).content.decode())
    return HttpResponse("".join(parts), status=422 if error else 200)


@require_POST
def item_update(request: HtmxHttpRequest, pk: int, item_id: int) -> HttpResponse:
    character = _editable(request, pk)
    form = ItemUpdateForm(request.POST)
    try:
        if not form.is_valid():
            raise RulesError(_first_error(form))
        changes = {"worn": form.cleaned_data["worn"]}
        if form.cleaned_data["quantity"] is not None:
            changes["quantity"] = form.cleaned_data["quantity"]
        written = services.item_update(character_id=character.pk, item_id=item_id, by=request.user, **changes)
    except RulesError as error:
        return _respond(request, character, "inventory", error=str(error))
    return _respond(request, character, "inventory", written=written)


@require_POST
def item_remove(request: HtmxHttpRequest, pk: int, item_id: int) -> HttpResponse:
    character = _editable(request, pk)
    try:
        written = services.item_remove(character_id=character.pk, item_id=item_id, by=request.user)
    except RulesError as error:
        return _respond(request, character, "inventory", error=str(error))
    return _respond(request, character, "inventory", written=written)


@require_POST
def hire(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = _editable(request, pk)
    rules = _rules_or_404(character)
    try:
        sheet = character.checked_sheet()
        form = rules_base.ParamSpec("Hire", rules.hire_params(sheet))
        choices = rules_base.check_params(form, sheet, raw_params(form, sheet, request.POST))
        choices = {key: value for key, value in choices.items() if value not in (None, "")}
        written = services.hireling_hire(character_id=character.pk, choices=choices, by=request.user)
    except RulesError as error:
        return _respond(request, character, "hirelings", error=str(error))
    return _respond(request, character, "hirelings", written=written)


@require_POST
def dismiss(request: HtmxHttpRequest, pk: int, hireling_id: int) -> HttpResponse:
    character = _editable(request, pk)
    try:
        written = services.hireling_dismiss(character_id=character.pk, hireling_id=hireling_id, by=request.user)
    except RulesError as error:
        return _respond(request, character, "hirelings", error=str(error))
    return _respond(request, character, "hirelings", written=written)


@require_POST
def offer_answer(request: HtmxHttpRequest, pk: int, offer_id: int, answer: str) -> HttpResponse:
    """Apply or decline what another player's roll would do to this character (its owner or the GM)."""
    character = _editable(request, pk)
    if not character.offers.filter(pk=offer_id).exists():
        raise Http404
    service = services.offer_apply if answer == "apply" else services.offer_decline
    try:
        written = service(offer_id=offer_id, by=request.user)
    except RulesError as error:
        return _respond(request, character, "vitals", error=str(error))
    return _respond(request, character, "vitals", written=written)


@require_POST
def rename(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = _editable(request, pk)
    form = RenameForm(request.POST)
    try:
        if not form.is_valid():
            raise RulesError(_first_error(form))
        written = services.character_rename(
            character_id=character.pk,
            name=form.cleaned_data["name"],
            by=request.user,
            expected_version=form.cleaned_data["version"],
        )
    except RulesError as error:
        return _respond(request, character, "details", error=str(error))
    return _respond(request, character, "details", written=written)


def edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Name, notes and the system's descriptive fields, after creation."""
    character = _editable(request, pk)
    rules = _rules_or_404(character)
    initial = {"name": character.name, "notes": character.notes, "version": character.version}
    initial.update({f"detail_{p.name}": character.state.get(p.name, p.default) for p in rules.detail_params()})
    form = details_form(rules, data=request.POST or None, initial=initial)
    if request.method == "POST":
        try:
            if not form.is_valid():
                raise RulesError(_first_error(form))
            data = form.cleaned_data
            details = {p.name: data.get(f"detail_{p.name}") for p in rules.detail_params()}
            services.character_edit_details(
                character_id=character.pk,
                by=request.user,
                name=data["name"],
                notes=data["notes"],
                details={k: (v if v is not None else "") for k, v in details.items()},
                expected_version=data["version"],
            )
        except RulesError as error:
            return render(
                request, "characters/edit.html", {"character": character, "form": form, "error": str(error)}, status=400
            )
        messages.success(request, "Details saved.")
        return redirect(character)
    return render(request, "characters/edit.html", {"character": character, "form": form})


def history(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Every change to a character, field by field (who, when, from → to), newest first; revert from here."""
    character = _visible(request, pk)
    can_edit = character.can_edit
    rules = SYSTEMS.get(character.system)
    hidden = () if rules is None or can_edit else rules.private_fields
    label = rules.field_label if rules is not None else (lambda path: path)
    wanted = request.GET.get("field", "")[:100]
    changes = list(character.changes.select_related("by", "reverted_by")[:200])
    entries, fields = [], {}
    for change in changes:
        rows = change_history.field_changes(change.before, change.after, label, hidden)
        fields.update({row["field"]: row["label"] if row["field"] != "items" else "Items" for row in rows})
        if wanted and not any(row["field"] == wanted for row in rows):
            continue
        entries.append({"change": change, "rows": rows, "reverted_by": _reverted_by(change)})
    context = {
        "character": character,
        "entries": entries,
        "fields": sorted(fields.items(), key=lambda pair: pair[1].lower()),
        "wanted": wanted,
        "can_edit": can_edit,
        "revert_form": RevertForm(auto_id=False),
    }
    return render(request, "characters/history.html", context)


def _reverted_by(change: Change) -> Change | None:
    try:
        return change.reverted_by
    except Change.DoesNotExist:
        return None


@require_POST
def revert(request: HtmxHttpRequest, pk: int, change_id: int) -> HttpResponse:
    """Put one change back, with a reason: from the history page, or the sheet's Undo right after a change."""
    character = _editable(request, pk)
    form = RevertForm(request.POST)
    region = form.data.get("region", "")
    region = region if region in ("vitals", "inventory", "details") else ""  # an Undo on the sheet answers there
    try:
        if not form.is_valid():
            raise RulesError(_first_error(form))
        written = services.change_revert(
            character_id=character.pk,
            change_id=change_id,
            by=request.user,
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )
    except RulesError as error:
        if region:
            return _respond(request, character, region, error=str(error))
        messages.error(request, str(error))
        return redirect("characters:history", pk=character.pk)
    if region:
        return _respond(request, character, region, written=written)
    messages.success(request, "Reverted: the history shows it as a new change.")
    return redirect("characters:history", pk=character.pk)


def delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(Character.objects.filter(owner=request.user), pk=pk)
    if request.method == "POST":
        services.character_delete(character_id=character.pk, by=request.user)
        messages.success(request, f"{character.name} is gone.")
        return redirect("characters:list")
    return render(request, "characters/delete.html", {"character": character})


# --- creation, export, import ----------------------------------------------------------------


def create(request: HtmxHttpRequest) -> HttpResponse:
    system_id = request.POST.get("system") or request.GET.get("system") or ""
    if system_id not in SYSTEMS:
        messages.error(request, "Pick a game system that has character sheets.")
        return redirect("characters:list")
    rules = SYSTEMS[system_id]
    campaign = None
    campaign_id = request.POST.get("campaign") or request.GET.get("campaign")
    if campaign_id:
        campaign = campaigns_of(request.user).filter(pk=parse_id(campaign_id) or 0).first()
        if campaign is None:
            messages.error(request, "You can only bring a character to a campaign you sit at.")
            return redirect("characters:list")
    params = rules.creation_params()
    dummy = rules_base.ParamSpec(f"New {rules.name} character", params)
    empty = rules_base.Sheet(state={})
    form = procedure_form(dummy, empty, data=request.POST or None, id_prefix="new")
    context = {
        "rules": rules,
        "form": form,
        "campaign": campaign,
        "system_id": system_id,
        "creation_settings": _creation_settings(rules, campaign),
    }
    if request.method == "POST":
        try:
            choices = rules_base.check_params(dummy, empty, raw_params(dummy, empty, request.POST))
            choices = {key: value for key, value in choices.items() if value not in (None, "")}
            character, creation = services.character_create(
                owner=request.user, system=system_id, choices=choices, campaign=campaign
            )
        except RulesError as error:
            context["error"] = str(error)
            return render(request, "characters/create.html", context, status=422 if request.htmx else 400)
        messages.success(request, f"{character.name} is ready.")
        return redirect(character)
    return render(request, "characters/create.html", context)


def _creation_settings(rules, campaign) -> list[dict[str, Any]]:
    """The table's settings that shape a new character (a house default shown as one), with the values in force."""
    in_force = campaign.settings_in_force() if campaign is not None else rules.settings_in_force(None)
    return [
        {"setting": s, "shown": s.shown(in_force.get(s.key, s.default))}
        for s in rules.rule_settings()
        if s.scope == "creation"
    ]


def export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(characters_editable_by(request.user), pk=pk)
    response = JsonResponse(export_character(character), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{slugify(character.name) or "character"}.json"'
    return response


@require_POST
def import_view(request: HtmxHttpRequest) -> HttpResponse:
    form = ImportForm(request.POST, request.FILES)
    error = ""
    if form.is_valid():
        try:
            character = import_character(owner=request.user, document=parse_document(form.cleaned_data["file"].read()))
        except RulesError as problem:
            error = str(problem)
        else:
            messages.success(request, f"{character.name} was imported.")
            return redirect(character)
    else:
        error = _first_error(form)
    messages.error(request, error)
    context = {
        "characters": Character.objects.filter(owner=request.user).select_related("campaign"),
        "playable": [(key, SYSTEM_NAMES[key]) for key in SYSTEMS],
        "campaigns": campaigns_of(request.user).filter(system__in=list(SYSTEMS)),
        "import_form": form,
    }
    return render(request, "characters/list.html", context, status=400)


def _rules_or_404(character: Character):
    if character.system not in SYSTEMS:
        raise Http404
    return SYSTEMS[character.system]


def _first_error(form) -> str:
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        return f"{label}: {errors[0]}" if label else errors[0]
    return "Check the form."
