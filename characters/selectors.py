"""Permission-scoped reads of characters."""

from __future__ import annotations

from django.db.models import Case, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When

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


def character_for(user, pk: int, *, edit: bool = False) -> Character | None:
    """The character if ``user`` may see it (or, with ``edit``, change it), in one query: its campaign and
    owner come along, and the viewer's seat at its table answers ``.can_edit`` and ``.viewer_is_gm``.

    The same rules as characters_visible_to / characters_editable_by, asked of one row: a sheet and each of
    its live regions would otherwise spend three queries (visible, editable, GM) before drawing anything.
    """
    if not user.is_authenticated:
        return None
    seat = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user=user).values("role")[:1]
    rows = Character.objects.select_related("campaign", "owner").annotate(viewer_role=Subquery(seat))
    character = rows.filter(pk=pk).first()
    if character is None:
        return None
    own, gm = character.owner_id == user.pk, character.viewer_role == Membership.Role.GM
    if not (own or character.viewer_role is not None):
        return None
    character.viewer_id, character.can_edit = user.pk, own or gm
    # At no table, the owner runs their own game.
    character.viewer_is_gm = gm if character.campaign_id else own
    return character if character.can_edit or not edit else None


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


def rolls_at_table(user, campaign_id: int, role: str | None) -> QuerySet[Roll]:
    """rolls_visible_to(user) at one table, when the viewer's seat there (``role``, None for none) is known
    already: the same rows, without the two membership subqueries."""
    if not user.is_authenticated:
        return Roll.objects.none()
    seen = Q(roller=user)
    if role is not None:
        seen |= Q(visibility=Roll.Visibility.PUBLIC)
    if role == Membership.Role.GM:
        seen |= Q(visibility=Roll.Visibility.GM)
    return Roll.objects.filter(seen, campaign_id=campaign_id)


def catalogue_matching(system: str, text: str, limit: int) -> list[CatalogueItem]:
    """A system's equipment rows whose name or table holds every word typed, things to carry before
    services, then by table and name: one query, at most ``limit`` + 1 rows (the extra one says "more")."""
    rows = CatalogueItem.objects.filter(system=system, available=True)
    for word in text.split()[:5]:
        rows = rows.filter(Q(name__icontains=word) | Q(group__icontains=word))
    service_last = Case(When(kind=Item.Kind.SERVICE, then=Value(1)), default=Value(0), output_field=IntegerField())
    return list(rows.order_by(service_last, "group", "name")[: limit + 1])
