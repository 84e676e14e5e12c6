"""Staff keep each system's equipment tables here; characters copy an item's numbers when they take it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html

from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from characters.services import catalogue_updates
from rules import SYSTEMS, RulesError

if TYPE_CHECKING:  # a type hint only: characters sit below campaigns
    from campaigns.models import Campaign

# The fields a character's copy holds: an edit to one of them is a new version its holders are offered.
COPIED = {"name", "kind", "slots", "data"}


@admin.register(CatalogueItem)
class CatalogueItemAdmin(admin.ModelAdmin):
    list_display = ("name", "system", "group", "kind", "cost", "price", "slots", "available", "version", "held_by")
    list_editable = ("cost", "slots", "available")
    list_filter = ("system", "kind", "group", "available")
    search_fields = ("name", "group", "note")
    ordering = ("system", "group", "name")
    list_per_page = 100
    readonly_fields = ("version", "holders_link")

    def save_model(self, request, obj, form, change) -> None:
        """An edit to what copies hold is a new version; cost, group, note and availability are the
        catalogue's own (a price is paid once, when the item is bought)."""
        if change and COPIED & set(form.changed_data):
            stored = CatalogueItem.objects.get(pk=obj.pk)
            catalogue_updates.record_edit(stored, obj)
        super().save_model(request, obj, form, change)

    def response_change(self, request, obj):
        """While holders' copies lack a version (this edit's), staff go on to choose who gets it. Asked of the
        rows, not of a mark save_model left on the object."""
        behind = obj.held_items.filter(catalogue_version__lt=obj.version)
        if "_continue" not in request.POST and behind.exists():
            self.message_user(request, f"{obj.name} is now version {obj.version}: choose whose copies it reaches.")
            return HttpResponseRedirect(reverse("admin:characters_catalogueitem_holders", args=[obj.pk]))
        return super().response_change(request, obj)

    def get_urls(self):
        holders = path(
            "<path:object_id>/holders/",
            self.admin_site.admin_view(self.holders_view),
            name="characters_catalogueitem_holders",
        )
        return [holders, *super().get_urls()]

    @admin.display(description="Who holds it")
    def holders_link(self, obj) -> str:
        if obj.pk is None:
            return "—"
        url = reverse("admin:characters_catalogueitem_holders", args=[obj.pk])
        return format_html('<a href="{}">Characters holding it, and their copies against this version</a>', url)

    def holders_view(self, request, object_id):
        """Who holds the entry (characters, their tables), how each copy differs from the entry now (old → new per
        field) and whether the update would break the sheet; staff push it to all, to chosen tables, or to none."""
        entry = CatalogueItem.objects.filter(pk=object_id).first() if str(object_id).isdigit() else None
        if entry is None:
            raise Http404("No such catalogue entry.")
        if not self.has_change_permission(request, entry):
            raise PermissionDenied
        url = reverse("admin:characters_catalogueitem_holders", args=[entry.pk])
        if request.method == "POST":
            return self._push(request, entry, url)
        behind = catalogue_updates.holdings(catalogue_updates.holders_of(entry), [entry])
        tables: dict[int | None, Campaign | None] = {h.character.campaign_id: h.campaign for h in behind}
        context = {
            **self.admin_site.each_context(request),
            "title": f"Copies of {entry.name}",
            "opts": self.model._meta,
            "original": entry,
            "entry": entry,
            "behind": behind,
            "tables": [t for t in tables.values() if t is not None],
            "held_by": Character.objects.filter(items__catalogue_item=entry).distinct().count(),
            "action": url,
        }
        return render(request, "admin/characters/catalogueitem/holders.html", context)

    def _push(self, request, entry: CatalogueItem, url: str):
        reach = request.POST.get("reach", "")
        if reach == "none":
            self.message_user(request, f"{entry.name}: no sheet changed; its holders keep their copies.")
            return HttpResponseRedirect(url)
        campaign_ids: list[int] | None = None
        if reach == "campaigns":
            raw = request.POST.getlist("campaign")
            if not raw or not all(value.isdigit() for value in raw):
                self.message_user(request, "Choose at least one table to push the update to.", messages.ERROR)
                return HttpResponseRedirect(url)
            campaign_ids = [int(value) for value in raw]
        elif reach != "all":
            choose = "Choose whose copies the update reaches: all, chosen tables, or none."
            self.message_user(request, choose, messages.ERROR)
            return HttpResponseRedirect(url)
        try:
            report = catalogue_updates.push_entry(entry_id=entry.pk, by=request.user, campaign_ids=campaign_ids)
        except RulesError as problem:
            self.message_user(request, str(problem), messages.ERROR)
            return HttpResponseRedirect(url)
        updated = ", ".join(c.name for c in report.updated) or "nobody"
        self.message_user(request, f"{entry.name} version {entry.version} reached {updated}.")
        for character, reason in report.skipped:
            self.message_user(request, f"Skipped {character.name}: {reason}", messages.WARNING)
        return HttpResponseRedirect(url)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_held_by=Count("held_items__character", distinct=True))

    @admin.display(description="Price", ordering="cost")
    def price(self, obj) -> str:
        """The cost the system's way ("7s"); the editable cost beside it is in the smallest coin."""
        rules = SYSTEMS.get(obj.system)
        return "" if obj.cost is None or rules is None else rules.format_money(obj.cost)

    @admin.display(description="Characters holding it", ordering="_held_by")
    def held_by(self, obj) -> int:
        return obj._held_by


class ItemInline(admin.TabularInline):
    model = Item
    extra = 0
    fields = ("name", "kind", "slots", "quantity", "worn", "data", "catalogue_item", "catalogue_version")
    readonly_fields = ("catalogue_item", "catalogue_version")  # set by adding from the catalogue and its updates


class HirelingInline(admin.TabularInline):
    model = Hireling
    extra = 0


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "system", "owner", "campaign", "version", "updated_at")
    list_filter = ("system",)
    search_fields = ("name", "owner__username", "campaign__name")
    readonly_fields = ("version", "created_at", "updated_at")
    inlines = [ItemInline, HirelingInline]


@admin.register(Roll)
class RollAdmin(admin.ModelAdmin):
    """Read-only: rolls are a record of what happened at the table."""

    list_display = ("created_at", "campaign", "character", "roller", "label", "outcome", "visibility")
    list_filter = ("visibility", "procedure")
    search_fields = ("label", "character__name", "roller__username")

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False
