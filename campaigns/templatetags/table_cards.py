"""The table page's kept cards (campaigns.card_cache), shown in place."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from campaigns import card_cache

register = template.Library()


@register.filter
def in_place(html: str, csrf_token: object) -> SafeString:
    """A kept card (drawn as pushed) as the page itself shows it, with the page's CSRF token."""
    return card_cache.in_place(html, csrf_token)
