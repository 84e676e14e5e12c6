"""The session and its user read for every logged-in request in one statement, not two ORM queries (issue 39):
``SESSION_ENGINE`` and the authentication middleware in ``settings.MIDDLEWARE`` name this module.

The session row (``accounts.models.Session``: Django's, with a ``user`` column written from its data on every
save) is read joined to its user by a query compiled once per process (``core.prepared``): building the ORM's
two queries cost more CPU than running them. What Django checks is unchanged: the session's expiry; the user the
session's data names (the column is only where to look), the backend named in the session, ``is_active``
(ModelBackend's ``user_can_authenticate``) and the session's hash of the password (a changed password logs the
other sessions out). Anything but the plain case (another backend, no user, an inactive one, a hash that doesn't
match the current secret) goes to Django's own ``get_user``, which refuses, flushes or rotates as it always does.
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
from django.core.exceptions import ValidationError
from django.db import router
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from accounts.models import Session
from core.prepared import Prepared

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
_model_backend = ModelBackend()
_user_by_pk = Prepared(lambda pk: get_user_model()._default_manager.filter(pk=pk), 1)


def _session_with_user(key):
    return Session.objects.filter(session_key=key).select_related("user")


# A session key is 32 letters and digits: this one can't be, nor be any other value of the query.
_SESSION = Prepared(_session_with_user, 1, sentinels=("\x00lantern session key\x00",))
_UNREAD = object()


class SessionStore(DbSessionStore):
    """Django's database sessions over ``accounts.models.Session``: read with the user it names."""

    read_user = _UNREAD  # the user row read with the session (None: the session names nobody, or nobody there)

    @classmethod
    def get_model_class(cls):
        return Session

    def create_model_instance(self, data):
        session = super().create_model_instance(data)
        try:
            session.user_id = get_user_model()._meta.pk.to_python(data.get(SESSION_KEY))
        except ValidationError:
            session.user_id = None
        return session

    def _get_session_from_db(self):
        if self.session_key is None:
            return None
        session = _SESSION.first(self.session_key, using=router.db_for_read(self.model))
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        self.read_user = session.user
        return session


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
    user = getattr(session, "read_user", _UNREAD)
    if user is _UNREAD or user is None or user.pk != user_id:
        user = _user_by_pk.first(user_id)  # a session saved before the column, or another store
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
