"""Staff keep each system's equipment tables here; characters copy an item's numbers when they take it."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from rules import SYSTEMS


@admin.register(CatalogueItem)
class CatalogueItemAdmin(admin.ModelAdmin):
    list_display = ("name", "system", "group", "kind", "cost", "price", "slots", "available", "held_by")
    list_editable = ("cost", "slots", "available")
    list_filter = ("system", "kind", "group", "available")
    search_fields = ("name", "group", "note")
    ordering = ("system", "group", "name")
    list_per_page = 100

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
    fields = ("name", "kind", "slots", "quantity", "worn", "data")


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
