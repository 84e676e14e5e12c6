"""No request ends in a 500: every named URL, as anyone, with odd path parameters and odd form fields.

For each named pattern in the URL conf, hypothesis draws who asks (nobody, a stranger, a player, the GM),
GET or POST, path parameters (real ids and names seen on the pages, or edge values: 0, -1, 2**63, 30 digits,
other scripts' digits, empty, "/") and, for a POST, the fields of a form the pages really render for that URL,
each kept, replaced by junk (huge, negative, NUL, unicode, 10 kB), dropped or repeated. Then a sweep gives every
field name of every URL's forms one odd value, the other fields as the page offers them. Each request runs in a
savepoint that is rolled back, so one request's changes never steer the next (issue 9, "faults end in a message").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import quote, urlsplit

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters import services
from tests.conftest import make_character

HTMX = {"HTTP_HX_REQUEST": "true"}
# The live table's stream never ends for a member (its own tests cover it); the admin is Django's.
SKIPPED_ROUTES = {"campaigns:events"}
# The API answers tokens, not sessions: tests/api/test_fuzz_api.py fuzzes it with JSON bodies and tokens.
SKIPPED_NAMESPACES = {"admin", "api"}
EDGE_PATH_VALUES = ["0", "-1", "1", str(2**63 - 1), str(2**63), "9" * 30, "²", "٣", "", "/", "é", "%00"]
JUNK = [
    "",
    " ",
    "/",
    "0",
    "-1",
    "-99999999999",
    str(2**31),
    str(2**63),
    "9" * 30,
    "1e9",
    "1.5",
    "²",
    "\x00",
    "a\x00b",
    "é☃𝔘",
    "\u202e",
    "<b>x</b>",
    "a" * 10_000,
    "true",
    "null",
    "[]",
]
# Under a minute per database on a shared 2-core machine; routes that take forms get more tries.
EXAMPLES_WITH_FORMS = 12
EXAMPLES_WITHOUT = 5
# The sweep: every field of every form the pages render gets one of these, the other fields as offered.
NASTY = ["9" * 30, "²", "\x00", "/", "-1", "a" * 10_000, str(2**63)]


# --- the URL conf --------------------------------------------------------------------------------


def _routes(resolver: URLResolver | None = None, prefix: str = "", namespace: str = "") -> list[tuple[str, str]]:
    """(name with namespace, route) for every named pattern, e.g. ("characters:roll", "characters/<id:pk>/...")."""
    found = []
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            if entry.namespace in SKIPPED_NAMESPACES:
                continue
            found += _routes(entry, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern) and entry.name:
            name = namespace + entry.name
            if name not in SKIPPED_ROUTES:
                found.append((name, prefix + str(entry.pattern)))
    return found


ROUTES = _routes()
PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def _fill(route: str, values: dict[str, str]) -> str:
    return "/" + PARAM.sub(lambda m: quote(values[m.group(2)], safe="/%"), route)


# --- the forms the pages really render -----------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str = "post"
    role: str = "gm"  # who saw it
    fields: dict[str, list[str]] = field(default_factory=dict)  # name → the values the page offers


class _Forms(HTMLParser):
    """Forms (their action or hx-post/hx-get) with their named fields, and every link on the page."""

    def __init__(self, page_url: str, role: str) -> None:
        super().__init__()
        self.page_url = page_url
        self.role = role
        self.forms: list[Form] = []
        self.links: set[str] = set()
        self._form: Form | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for key in ("href", "action", "hx-get", "hx-post"):
            if a.get(key, "").startswith("/"):
                self.links.add(a[key].split("#")[0])
        if tag == "form":
            get = "hx-get" in a or (a.get("method", "get").lower() == "get" and "hx-post" not in a)
            action = a.get("hx-post") or a.get("hx-get") or a.get("action") or self.page_url
            self._form = Form(action=action, method="get" if get else "post", role=self.role)
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag in ("input", "textarea", "button") and a.get("name"):
            self._form.fields.setdefault(a["name"], []).append(a.get("value", ""))
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self._form.fields.setdefault(self._select, [])
        elif tag == "option" and self._select:
            self._form.fields[self._select].append(a.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


@dataclass
class World:
    clients: dict[str, Client]
    users: dict[str, object]
    forms: dict[str, list[Form]]  # route name → forms that post to it
    path_values: dict[tuple[str, str], set[str]]  # (route name, parameter) → values seen on the pages


def _crawl(world: World, role: str, url: str) -> None:
    response = world.clients[role].get(url)
    if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
        return
    parser = _Forms(url, role)
    parser.feed(response.content.decode())
    for link in parser.links | {f.action for f in parser.forms}:
        try:
            match = resolve(urlsplit(link).path)
        except Resolver404:
            continue
        for key, value in match.kwargs.items():
            world.path_values.setdefault((match.view_name, key), set()).add(str(value))
    for form in parser.forms:
        try:
            name = resolve(urlsplit(form.action).path).view_name
        except Resolver404:
            continue
        world.forms.setdefault(name, []).append(form)


@pytest.fixture
def world(db, campaign, gm, player, stranger):
    hero = make_character(player, campaign, name="Wren")
    make_character(gm, campaign, name="Ash", seed=11)
    brannoc = make_character(player, None, system="chaos-conquest", name="Brannoc", seed=3)
    services.hireling_hire(character_id=brannoc.pk, choices={"kind": "retainer"}, by=player)
    users = {"anonymous": None, "stranger": stranger, "player": player, "gm": gm}
    clients = {}
    for role, user in users.items():
        clients[role] = Client(raise_request_exception=False)
        if user is not None:
            clients[role].force_login(user)
    world = World(clients=clients, users=users, forms={}, path_values={})
    pages = ["/campaigns/", f"/campaigns/{campaign.pk}/", "/characters/", "/characters/import/"]
    pages += [f"/characters/{c.pk}/" for c in (hero, brannoc)]
    pages += [f"/characters/new/?system={s}&campaign={campaign.pk}" for s in ("fell-draft", "chaos-conquest")]
    pages += [f"/campaigns/join/{campaign.invite_code}/", "/accounts/password/"]
    for role in ("player", "gm"):
        for page in pages:
            _crawl(world, role, page)
    for page in ("/accounts/login/", "/accounts/signup/"):
        _crawl(world, "anonymous", page)
    return world


# --- the requests --------------------------------------------------------------------------------

junk = st.sampled_from(JUNK) | st.sampled_from(JUNK) | st.text(max_size=12)


@st.composite
def form_data(draw, forms: list[Form]) -> dict[str, object]:
    fields = dict(draw(st.sampled_from(forms)).fields) if forms else {}
    for extra in draw(st.lists(st.sampled_from(["pk", "id", "user_id", "quantity", "version", "x"]), max_size=2)):
        fields.setdefault(extra, [])
    data: dict[str, object] = {}
    for name, offered in fields.items():
        # Mostly what the page offers, so one odd field at a time gets past the others' checks.
        choice = draw(st.sampled_from(["offered", "offered", "offered", "junk", "drop", "repeat"]))
        if choice == "drop":
            continue
        value = draw(st.sampled_from(offered)) if offered and choice == "offered" else draw(junk)
        data[name] = [value, draw(junk)] if choice == "repeat" else value
    return data


def _describe(method: str, path: str, role: str, data: dict, htmx: bool) -> str:
    shown = {k: (v[:40] + "…" if isinstance(v, str) and len(v) > 40 else v) for k, v in data.items()}
    return f"{method.upper()} {path!r} as {role}{' (htmx)' if htmx else ''} with {shown!r}"


def _fuzz(world: World, name: str, route: str) -> None:
    params = [m.group(2) for m in PARAM.finditer(route)]

    @settings(
        max_examples=EXAMPLES_WITH_FORMS if world.forms.get(name) else EXAMPLES_WITHOUT,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.data())
    def one_request(data):
        role = data.draw(st.sampled_from(sorted(world.clients)), label="who")
        values = {
            p: data.draw(st.sampled_from(sorted(world.path_values.get((name, p), set())) + EDGE_PATH_VALUES), label=p)
            for p in params
        }
        path = _fill(route, values)
        method = data.draw(st.sampled_from(["get", "post"]), label="method")
        fields = data.draw(form_data(world.forms.get(name, [])), label="fields")
        htmx = data.draw(st.booleans(), label="htmx")
        client = world.clients[role]
        with transaction.atomic():
            response = getattr(client, method)(path, fields, **(HTMX if htmx else {}))
            transaction.set_rollback(True)
        if world.users[role] is not None and "_auth_user_id" not in client.session:
            client.force_login(world.users[role])  # the request logged out (or changed the password)
        assert response.status_code < 500, _describe(method, path, role, fields, htmx)

    one_request()


def test_no_request_to_any_url_ends_in_a_server_error(world):
    # If the pages stop rendering their forms, the fuzz would go blind: check it sees them.
    for name in ["characters:roll", "characters:adjust", "characters:item_add", "campaigns:time_advance", "signup"]:
        assert world.forms.get(name), f"no form on the crawled pages posts to {name}"
    assert world.path_values.get(("characters:roll", "procedure")), "no roll links on the sheets"
    # One test over every route, so the cast and the crawl of their pages are built once.
    failures = []
    for name, route in ROUTES:
        try:
            _fuzz(world, name, route)
        except AssertionError as failure:
            failures.append(f"{name}: {str(failure).splitlines()[0]}")
    failures += _sweep(world)
    assert not failures, "requests that ended in a 500:\n" + "\n".join(failures)


def _sweep(world: World) -> list[str]:
    """Every field name of every URL's forms, one odd value each (rotating through NASTY), as the one who saw it.

    A field shared by many forms of one URL (``visibility`` on every roll) is tried in the first form only.
    """
    failures, seen, turn = [], set(), 0
    for name, forms in sorted(world.forms.items()):
        for form in forms:
            offered = {k: (v[0] if v else "") for k, v in form.fields.items()}
            for field_name in sorted(form.fields):
                if field_name == "csrfmiddlewaretoken" or (name, form.role, field_name) in seen:
                    continue
                seen.add((name, form.role, field_name))
                turn += 1
                fields = {**offered, field_name: NASTY[turn % len(NASTY)]}
                client = world.clients[form.role]
                with transaction.atomic():
                    response = getattr(client, form.method)(urlsplit(form.action).path, fields, **HTMX)
                    transaction.set_rollback(True)
                if world.users[form.role] is not None and "_auth_user_id" not in client.session:
                    client.force_login(world.users[form.role])
                if response.status_code >= 500:
                    failures.append(f"{name}: {_describe(form.method, form.action, form.role, fields, True)}")
    return failures
