"""The session and its user read for every logged-in request in two short statements, not two ORM queries
(issue 39): ``SESSION_ENGINE`` and the authentication middleware in ``settings.MIDDLEWARE`` name this module.

Building the ORM's two queries (the session row, the user row) cost more CPU than running them: here the
session is one fixed SQL statement and the user a query compiled once per process (``core.prepared``). What
Django checks is unchanged: the session's expiry in the statement, and for the user the backend named in the
session, ``is_active`` (ModelBackend's ``user_can_authenticate``) and the session's hash of the password (a
changed password logs the other sessions out). Anything but the plain case (another backend, no user, an
inactive one, a hash that doesn't match the current secret) goes to Django's own ``get_user``, which refuses,
flushes or rotates as it always does.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.auth.middleware import auser as django_auser
from django.contrib.sessions.backends.db import SessionStore as DbSessionStore
from django.db import connections, router
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from core.prepared import Prepared

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
_model_backend = ModelBackend()
_user_by_pk = Prepared(lambda pk: get_user_model()._default_manager.filter(pk=pk), 1)


class SessionStore(DbSessionStore):
    """Django's database sessions; a session is read by one fixed statement instead of a built query."""

    def _get_session_from_db(self):
        if self.session_key is None:
            return None
        model = self.model
        using = router.db_for_read(model)
        connection = connections[using]
        quote = connection.ops.quote_name
        sql = (
            f"SELECT {quote('session_data')} FROM {quote(model._meta.db_table)} "
            f"WHERE {quote('session_key')} = %s AND {quote('expire_date')} > %s"
        )
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        # Only what load() reads; expire_date, were anything to ask, loads as a deferred field.
        return model.from_db(using, ["session_key", "session_data"], (self.session_key, row[0]))


def get_user(request):
    """``request.user``: the plain case read here, everything else by Django's ``get_user``."""
    session = request.session
    try:
        user_id = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return auth.get_user(request)  # anonymous: Django's answer, no query
    if backend_path != MODEL_BACKEND or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return auth.get_user(request)
    user = _user_by_pk.first(user_id)
    session_hash = session.get(HASH_SESSION_KEY)
    if (
        user is not None
        and _model_backend.user_can_authenticate(user)
        and session_hash
        and constant_time_compare(session_hash, user.get_session_auth_hash())
    ):
        return user
    return auth.get_user(request)


def _cached_user(request):
    if not hasattr(request, "_cached_user"):
        request._cached_user = get_user(request)
    return request._cached_user


async def _auser(request):
    """The user the request already read, if it did (an async middleware after a sync view): not read twice."""
    if hasattr(request, "_cached_user"):
        return request._cached_user
    return await django_auser(request)


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    def process_request(self, request):
        super().process_request(request)  # its checks
        request.user = SimpleLazyObject(lambda: _cached_user(request))
        request.auser = partial(_auser, request)
