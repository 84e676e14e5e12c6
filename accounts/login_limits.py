"""Login limits: django-axes' database handler, counting a wrong password against two things (issue 23, item 11).

- the (account, address) pair, locked after ``AXES_FAILURE_LIMIT`` (LOGIN_FAILURE_LIMIT): someone guessing an
  account from elsewhere never locks its owner out of their own device;
- the address, locked on its own after LOGIN_ADDRESS_FAILURE_LIMIT across every account it tried.

django-axes compares one count with one limit, so ``get_failures`` reports a locked address on the pair's
scale. A locked try is refused by ``axes.backends.AxesStandaloneBackend`` before Django's backend runs the
password hasher, so guessing costs the server a couple of queries, not a hash.
"""

from __future__ import annotations

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce


class LoginLimits(AxesDatabaseHandler):
    def get_failures(self, request, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        # One query for both counts: every login try (locked ones included) asks this.
        counts = AccessAttempt.objects.filter(
            ip_address=request.axes_ip_address, attempt_time__gte=get_cool_off_threshold(request)
        ).aggregate(
            address=Coalesce(Sum("failures_since_start"), 0),
            pair=Coalesce(Sum("failures_since_start", filter=Q(username=username)), 0),
        )
        if counts["address"] >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
            return max(counts["pair"], get_failure_limit(request, credentials))
        return counts["pair"]

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        """A successful login clears its own pair's failures, not the address's failures on other accounts
        (logging into one's own account must not buy another round of guesses at someone else's)."""
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return count
