"""Campaign pages: HTTP only. Authorise through selectors, change through services."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands, page_cache, services, table_view
from campaigns.forms import BackupForm, CampaignForm, HandOverForm, JoinForm, MemberForm, SystemsForm
from campaigns.models import Campaign
from campaigns.selectors import (
    campaigns_of,
    campaigns_owned_by,
    campaigns_run_by,
    membership_of,
    my_campaigns,
    seats_of,
)
from campaigns.session_views.common import gm_write
from campaigns.table import party_cards, roll_log
from characters import commands as character_commands
from characters import services as character_services
from characters.forms import AdjustForm, plain_inputs, raw_params
from characters.selectors import characters_editable_by
from characters.services import catalogue_updates as catalogue_service
from core.htmx import HtmxHttpRequest
from live import journal
from live.hub import CSRF_SLOT
from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules import base as rules_base
from rules.free import FREE_ROLL


def campaign_list(request: HtmxHttpRequest) -> HttpResponse:
    return render_list(request, CampaignForm(), JoinForm())


def render_list(
    request, form: CampaignForm, join_form: JoinForm, status: int = 200, backup_form: BackupForm | None = None
) -> HttpResponse:
    context = {
        "seats": my_campaigns(request.user),
        "form": form,
        "join_form": join_form,
        "backup_form": backup_form or BackupForm(),
    }
    return render(request, "campaigns/list.html", context, status=status)


@require_POST
def campaign_create(request: HtmxHttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST)
    if not form.is_valid():
        return render_list(request, form, JoinForm(), status=400)
    try:
        campaign = services.campaign_create(
            name=form.cleaned_data["name"],
            system=form.cleaned_data["system"],
            also=form.cleaned_data["also"],
            gm=request.user,
        )
    except services.CampaignError as error:
        form.add_error(None, str(error))
        return render_list(request, form, JoinForm(), status=400)
    messages.success(request, f"{campaign.name} is ready. Share the invite link with your players.")
    return redirect(campaign)


def campaign_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The table page: its body as kept for this viewer and table state (campaigns.page_cache), the token put in."""
    seat = page_cache.seat_with_stamps(request.user, pk)
    if seat is None:
        raise Http404
    body = page_cache.table_body(request, seat).replace(CSRF_SLOT, get_token(request))
    context = {"campaign": seat.campaign, "membership": seat, "body": mark_safe(body)}  # noqa: S308 - our templates
    return render(request, "campaigns/detail.html", context)


@require_GET
def table_region(request: HtmxHttpRequest, pk: int, name: str) -> HttpResponse:
    """One live region of the table page, re-fetched by htmx when the stream says it changed: built alone."""
    build = table_view.REGIONS.get(name)
    if build is None:
        raise Http404
    seat = get_object_or_404(seats_of(request.user), campaign_id=pk)
    return render(request, f"campaigns/detail.html#{name}", build(request, seat.campaign, seat))


@require_GET
def card(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    seat = get_object_or_404(seats_of(request.user), campaign_id=pk)
    cards = party_cards(seat.campaign, only_id=character_id)
    if not cards:
        raise Http404
    return render(request, "campaigns/detail.html#card", table_view.card_context(seat.campaign, seat, cards[0]))


@require_GET
def older_rolls(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    try:
        before = int(request.GET.get("before", ""))
    except ValueError:
        return HttpResponse("Say which roll to page back from.", status=400)
    rolls, has_older = roll_log(request.user, campaign, before=before)
    context = {"campaign": campaign, "rolls": rolls, "has_older": has_older, "system_id": campaign.system}
    return render(request, "campaigns/detail.html#older", context)


@require_POST
def move_clock(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM's strip: minutes of game time, or the fight's next turn (campaigns.commands.move_clock)."""
    campaign, _done, error = gm_write(request, pk, commands.move_clock)
    return _table_response(request, campaign, "clock", error)


@require_POST
def gm_roll(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM rolls as the GM, without a character: a luck die, a wandering-monster check..."""
    campaign, _done, error = gm_write(request, pk, commands.gm_roll)
    return _table_response(request, campaign, "log", error)


def _table_procedure(campaign: Campaign, key: str):
    procedure = commands.table_procedure(campaign, key) if campaign.system in SYSTEMS else None
    if procedure is None:
        raise Http404
    return procedure


@require_POST
def table_roll(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    """A system's roll for the GM's table, made for no character (an NPC's morale): logged as the GM's."""
    campaign, _done, error = gm_write(request, pk, partial(commands.table_roll, procedure=procedure))
    return _table_response(request, campaign, "log", error)


@require_GET
def table_roll_odds(request: HtmxHttpRequest, pk: int, procedure: str) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    proc = _table_procedure(campaign, procedure)
    try:
        params = rules_base.check_params(proc, None, raw_params(proc, None, request.GET))
        odds, error = proc.odds(None, params), ""
    except RulesError as problem:
        odds, error = None, str(problem)
    return render(request, "characters/_odds.html", {"odds": odds, "error": error, "system_id": campaign.system})


@require_GET
def gm_roll_odds(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    get_object_or_404(campaigns_run_by(request.user), pk=pk)
    try:
        params = rules_base.check_params(FREE_ROLL, None, raw_params(FREE_ROLL, None, request.GET))
        odds, error = FREE_ROLL.odds(None, params), ""
    except RulesError as problem:
        odds, error = None, str(problem)
    return render(request, "characters/_odds.html", {"odds": odds, "error": error, "system_id": ""})


@require_POST
def card_adjust(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    """+/- from a table card: the GM for anyone, a player for their own characters (characters.commands.adjust)."""
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    seat = character_commands.editable(request.user, character_id)
    if seat.character.campaign_id != campaign.pk:
        raise Http404
    form = AdjustForm(request.POST)
    error = ""
    try:
        if not form.is_valid():
            raise RulesError("Change a track by a whole number between -1000 and 1000.")
        data = form.cleaned_data
        character_commands.adjust(seat, key=data["key"], delta=data["delta"], by=request.user)
    except RulesError as problem:
        error = str(problem)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    cards = party_cards(campaign, only_id=character_id)
    context = table_view.card_context(campaign, membership_of(request.user, campaign), cards[0], error)
    return render(request, "campaigns/detail.html#card", context, status=422 if error else 200)


def _table_response(request, campaign: Campaign, region: str, error: str) -> HttpResponse:
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # campaigns_run_by() let only the GM in
    context = {**table_view.REGIONS[region](request, campaign, membership), "error": error, "error_region": region}
    return render(request, f"campaigns/detail.html#{region}", context, status=422 if error else 200)


def join_by_form(request: HtmxHttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_valid():
        return redirect("campaigns:join", code=form.cleaned_data["code"])
    return render_list(request, CampaignForm(), form, status=400)


def campaign_join(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """GET shows what you are joining; POST joins. A bad or old code says so, politely."""
    # PostgreSQL refuses a NUL in a query; no code holds one.
    campaign = Campaign.objects.filter(invite_code=code).first() if "\x00" not in code else None
    if campaign is None:
        return render(request, "campaigns/join_invalid.html", status=404)
    if request.method == "POST":
        joined = services.campaign_join(invite_code=code, user=request.user)
        campaign = joined.campaign
        if "members" in joined.regions:  # new at the table
            messages.success(request, f"You joined {campaign.name}.")
        return redirect(campaign)
    if membership_of(request.user, campaign):
        return redirect(campaign)
    return render(request, "campaigns/join.html", {"campaign": campaign, "code": code})


def _confirmed(
    request, campaign: Campaign, question: str, detail: str, button: str, choice: tuple | None = None
) -> HttpResponse | None:
    """Hard-to-reverse table actions ask first, on the server (no script needed): None once confirmed.
    ``choice``: one more thing asked there, (field, legend, [(value, label)], the value ticked at first)."""
    if request.POST.get("confirm") == "yes":
        return None
    asked = {"csrfmiddlewaretoken", "confirm", choice[0] if choice else ""}
    fields = [(k, v) for k, v in request.POST.items() if k not in asked]
    context = {"campaign": campaign, "question": question, "detail": detail, "button": button, "fields": fields}
    if choice:
        context["choice"] = dict(zip(("name", "legend", "options", "initial"), choice, strict=True))
    return render(request, "campaigns/confirm.html", context)


@require_POST
def regenerate_invite(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    ask = _confirmed(
        request,
        campaign,
        "Make a new invite link?",
        "The link you sent before stops working; people already at the table stay.",
        "Make a new link",
    )
    if ask:
        return ask
    services.campaign_regenerate_invite(campaign=campaign, by=request.user)
    messages.success(request, "New invite link made: the old one no longer works.")
    return redirect(campaign)


@require_POST
def remove_player(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    name = _member_name(request, campaign)
    ask = _confirmed(
        request,
        campaign,
        f"Remove {name} from {campaign.name}?",
        "Their characters leave the table with them (they keep them); they can come back with the invite link.",
        f"Remove {name}",
    )
    return (
        ask
        if name and ask
        else _member_action(
            request, campaign, partial(services.campaign_remove_player, by=request.user), "{name} has left the table."
        )
    )


@require_POST
def transfer_gm(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The owner hands the table over, and says whether they stay as a co-GM or a player (asked on the
    confirmation page); the table's history stays as it was."""
    campaign = get_object_or_404(campaigns_owned_by(request.user), pk=pk)
    name = _member_name(request, campaign)
    ask = _confirmed(
        request,
        campaign,
        f"Make {name} the owner of {campaign.name}?",
        "Only the new owner names co-GMs or hands the table on; its journal, sessions and rolls stay as they are.",
        f"Make {name} the owner",
        choice=("stay", "And you", HandOverForm.STAY, "cogm"),
    )
    return ask if name and ask else _member_command(request, campaign, commands.hand_over, "{name} now owns the table.")


@require_POST
def set_co_gm(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The owner names a member co-GM, or makes a co-GM a player again."""
    campaign = get_object_or_404(campaigns_owned_by(request.user), pk=pk)
    named = request.POST.get("co_gm") == "on"
    success = "{name} is now a co-GM." if named else "{name} is a player again."
    return _member_command(request, campaign, commands.set_co_gm, success)


def _member_command(request, campaign: Campaign, command, success: str) -> HttpResponse:
    """A member action that is one of the table's commands (its inputs: the form's fields)."""
    name = _member_name(request, campaign)
    try:
        command(campaign.pk, inputs=plain_inputs(request.POST), by=request.user)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, success.format(name=name))
    return redirect(campaign)


def _member_name(request, campaign: Campaign) -> str:
    """Who a member action names: "" for no one at this table (refused at once; there is nothing to confirm)."""
    form = MemberForm(request.POST)
    if form.is_valid():
        seat = campaign.memberships.select_related("user").filter(user_id=form.cleaned_data["user_id"]).first()
        if seat is not None:
            return seat.user.username
    return ""


def _member_action(request, campaign: Campaign, action, success: str) -> HttpResponse:
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a person at this table.")
        return redirect(campaign)
    membership = campaign.memberships.select_related("user").filter(user_id=form.cleaned_data["user_id"]).first()
    try:
        if membership is None:
            raise services.CampaignError("That person is not at this table.")
        action(campaign=campaign, user_id=membership.user_id)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, success.format(name=membership.user.username))
    return redirect(campaign)


@require_POST
def leave(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    try:
        services.campaign_leave(campaign=campaign, user=request.user)
    except services.CampaignError as error:
        messages.error(request, str(error))
        return redirect(campaign)
    messages.success(request, f"You left {campaign.name}.")
    return redirect("campaigns:list")


# --- rule settings ---------------------------------------------------------------------------------


def rule_settings(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The readings this table plays by: everyone at the table reads them, the GM changes them."""
    after = journal.head(pk)  # before the page's reads: its stream hears every change made after them
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    membership = membership_of(request.user, campaign)
    error = ""
    status = 200
    # A mixed table shows one system's settings at a time (?system=…; the form sends it back).
    system_id = request.POST.get("system") or request.GET.get("system") or campaign.system
    if not campaign.plays(system_id):
        system_id, error, status = campaign.system, "This table does not play that system.", 400
    if request.method == "POST" and not error:
        if membership is None or not membership.is_gm:
            raise Http404
        try:
            written, dice = services.campaign_save_settings_page(
                campaign_id=campaign.pk,
                values=settings_from_post(campaign, request.POST, system_id),
                hand_dice=request.POST.get("hand_dice"),
                by=request.user,
                system=system_id,
            )
        except services.CampaignError as problem:
            error, status = str(problem), 400
        else:
            if not request.htmx:
                changes = [*written.row, *([dice] if dice is not None else [])]
                if changes:
                    messages.success(request, "; ".join(f"{c.label}: {c.before} → {c.after}" for c in changes))
                return redirect(_settings_url(campaign, system_id))
            campaign = written.campaign  # as the write left it: no reading back
    elif request.method not in ("GET", "POST"):
        return HttpResponse("Use GET or POST.", status=405)
    context = {**_settings_context(request, campaign, membership, error, system_id), "journal_cursor": after}
    if request.htmx:
        return render(request, "campaigns/settings.html#rule-settings", context, status=200)
    return render(request, "campaigns/settings.html", context, status=status)


def _settings_url(campaign: Campaign, system_id: str) -> str:
    url = reverse("campaigns:settings", args=[campaign.pk])
    return url if system_id == campaign.system else f"{url}?system={system_id}"


def settings_from_post(campaign: Campaign, post, system_id: str | None = None) -> dict[str, Any]:
    """The values the settings form sends, one per declared setting (an unticked box sends nothing: no)."""
    values: dict[str, Any] = {}
    system = SYSTEMS.get(system_id or campaign.system)
    for setting in system.rule_settings() if system is not None else ():
        if setting.kind == "bool":
            values[setting.key] = post.get(setting.key, "no") or "no"
        elif setting.key in post:
            values[setting.key] = post.get(setting.key, "")
    return values


def _settings_context(
    request, campaign: Campaign, membership, error: str = "", system_id: str | None = None
) -> dict[str, Any]:
    system_id = system_id or campaign.system
    system = SYSTEMS.get(system_id)
    declared = system.rule_settings() if system is not None else ()
    in_force = campaign.settings_in_force(system_id)
    rows = [
        {
            "setting": s,
            "value": in_force.get(s.key, s.default),
            "shown": s.shown(in_force.get(s.key, s.default)),
            "default_shown": s.shown(s.default),
            "changed": in_force.get(s.key, s.default) != s.default,
            "lines": "\n".join(str(v) for v in in_force.get(s.key, s.default)) if s.kind == "list" else "",
        }
        for s in declared
    ]
    context: dict[str, Any] = {
        "campaign": campaign,
        "membership": membership,
        "rows": rows,
        "error": error,
        "changes": list(campaign.setting_changes.select_related("by")[:20]),
        "has_creation_settings": any(s.scope == "creation" for s in declared),
        "hand_dice_choices": campaign.HandDice.choices,
        "settings_system": system_id,
        "settings_system_name": SYSTEM_NAMES.get(system_id, system_id),
        "system_tabs": [(s, SYSTEM_NAMES.get(s, s), _settings_url(campaign, s)) for s in campaign.systems],
        "systems_form": SystemsForm(initial={"also": campaign.systems[1:]}, home=campaign.system),
    }
    if context["has_creation_settings"] and membership is not None and membership.is_gm:
        of_system = campaign.characters.filter(system=system_id)
        context["characters"] = list(of_system.order_by("name", "pk").only("pk", "name", "system"))
    return context


@require_POST
def table_systems(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM chooses which other systems' characters may sit at the table (a plain form on the settings page)."""
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    membership = membership_of(request.user, campaign)
    if membership is None or not membership.is_gm:
        raise Http404
    form = SystemsForm(request.POST, home=campaign.system)
    try:
        if not form.is_valid():
            raise services.CampaignError(form.errors.get("also", ["Choose from the systems listed."])[0])
        written = services.campaign_set_systems(
            campaign_id=campaign.pk, also=form.cleaned_data["also"], by=request.user
        )
    except services.CampaignError as problem:
        context = {**_settings_context(request, campaign, membership), "journal_cursor": journal.head(pk)}
        return render(request, "campaigns/settings.html", {**context, "systems_error": str(problem)}, status=400)
    for change in written.row:
        messages.success(request, f"{change.label}: {change.before} → {change.after}")
    return redirect("campaigns:settings", pk=campaign.pk)


@require_POST
def hand_dice(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM sets who may type in dice rolled at the table (a plain form on the settings page)."""
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    membership = membership_of(request.user, campaign)
    if membership is None or not membership.is_gm:
        raise Http404
    try:
        changed = services.campaign_set_hand_dice(
            campaign_id=campaign.pk, value=request.POST.get("hand_dice", ""), by=request.user
        )
    except services.CampaignError as problem:
        context = _settings_context(request, campaign, membership)
        return render(request, "campaigns/settings.html", {**context, "dice_error": str(problem)}, status=400)
    if changed is not None:
        messages.success(request, f"Dice: {changed.before} → {changed.after}")
    return redirect("campaigns:settings", pk=campaign.pk)


def catalogue_updates(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM's table against the catalogue: each copy older than its entry (old → new per field, and why a sheet
    would refuse it); a POST brings every copy that fits up to date, each through its character's rules and
    history."""
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    if request.method == "POST":
        try:
            report = catalogue_service.pull_for_table(campaign=campaign, by=request.user)
        except RulesError as problem:
            messages.error(request, str(problem))
        else:
            updated = ", ".join(c.name for c in report.updated)
            messages.success(request, f"Brought up to date: {updated}." if updated else "Every copy was up to date.")
            for character, reason in report.skipped:
                messages.warning(request, f"Skipped {character.name}: {reason}")
        return redirect("campaigns:catalogue_updates", pk=campaign.pk)
    if request.method != "GET":
        return HttpResponse("Use GET or POST.", status=405)
    behind, _ = catalogue_service.behind_at_table(campaign)
    return render(request, "campaigns/catalogue_updates.html", {"campaign": campaign, "behind": behind})


@require_POST
def apply_settings(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The GM brings one character made earlier in line with the table's creation settings."""
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    character = get_object_or_404(characters_editable_by(request.user).filter(campaign=campaign), pk=character_id)
    try:
        character_services.character_apply_settings(character_id=character.pk, by=request.user)
    except RulesError as problem:
        messages.error(request, str(problem))
    else:
        messages.success(request, f"{character.name} now follows the table's rule settings.")
    return redirect("campaigns:settings", pk=campaign.pk)
