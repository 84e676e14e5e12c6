"""Permission-scoped reads of characters."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from campaigns.models import Membership
from characters.models import CatalogueItem, Character, Item, Roll


def characters_visible_to(user) -> QuerySet[Character]:
    """Your own characters, and every character at a table you sit at."""
    if not user.is_authenticated:
        return Character.objects.none()
    return Character.objects.filter(Q(owner=user) | Q(campaign__memberships__user=user)).distinct()


def characters_editable_by(user) -> QuerySet[Character]:
    """Your own characters, and every character in a campaign you GM."""
    if not user.is_authenticated:
        return Character.objects.none()
    gm_of = Membership.objects.filter(user=user, role=Membership.Role.GM).values("campaign_id")
    return Character.objects.filter(Q(owner=user) | Q(campaign_id__in=gm_of))


def rolls_visible_to(user):
    """Public rolls of tables you sit at, your own rolls, and GM-only rolls at tables you run."""
    if not user.is_authenticated:
        return Roll.objects.none()
    member_of = Membership.objects.filter(user=user).values("campaign_id")
    gm_of = Membership.objects.filter(user=user, role=Membership.Role.GM).values("campaign_id")
    return Roll.objects.filter(
        Q(roller=user)
        | Q(visibility=Roll.Visibility.PUBLIC, campaign_id__in=member_of)
        | Q(visibility=Roll.Visibility.GM, campaign_id__in=gm_of)
    )


def catalogue_matching(system: str, text: str, limit: int) -> list[CatalogueItem]:
    """A system's equipment rows whose name or table holds every word typed, things to carry before
    services, then by table and name: one query, at most ``limit`` + 1 rows (the extra one says "more")."""
    rows = CatalogueItem.objects.filter(system=system, available=True)
    for word in text.split()[:5]:
        rows = rows.filter(Q(name__icontains=word) | Q(group__icontains=word))
    service_last = Case(When(kind=Item.Kind.SERVICE, then=Value(1)), default=Value(0), output_field=IntegerField())
    return list(rows.order_by(service_last, "group", "name")[: limit + 1])
