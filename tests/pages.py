"""Reading pages as a person does, and posting with or without htmx: shared by the app tests."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.urls import Resolver404, resolve, reverse

from characters.models import Character, Roll

HTMX = {"HTTP_HX_REQUEST": "true"}
BOTH = pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])


def text_of(response) -> str:
    """The page as a person reads it: tags dropped, entities decoded, whitespace squeezed."""
    body = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(body))


def field_text(response, attribute: str, name: str) -> str:
    """The text of the element marked ``attribute="name"`` (its <dd> when it holds a <dt>/<dd> pair)."""
    page = response.content.decode()
    match = re.search(rf'<(\w+)[^>]*{attribute}="{name}"[^>]*>(?:<dt>.*?</dt>)?(.*?)</\1>', page, re.S)
    assert match, f"no {attribute}={name} on the page"
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", match.group(2)))).strip()


def track_text(response, key: str) -> str:
    """A track of the Vitals region as a person reads it: "2/5", or "37" when it has no maximum."""
    page = response.content.decode()
    value = r'<span data-value>(-?\d+)</span>(?:<span class="muted">/(\d+)</span>)?'
    match = re.search(rf'data-track="{key}"[^>]*>.*?{value}', page, re.S)
    assert match, f"no track {key} on the page"
    return match.group(1) + (f"/{match.group(2)}" if match.group(2) else "")


def post(client, url: str, data: dict, htmx: bool):
    return client.post(url, data, **(HTMX if htmx else {}))


def unchanged(character: Character):
    """Snapshot of everything a refused request must leave alone."""
    character.refresh_from_db()
    return (
        character.version,
        character.state,
        list(character.items.values_list("name", "quantity", "worn")),
        list(character.hirelings.values_list("name", flat=True)),
        Roll.objects.filter(character=character).count(),
    )


def refused(response, htmx: bool, message: str) -> None:
    """A refusal: 422 for htmx (swapped so it shows), 400 for a plain post, with the reason on the page."""
    assert response.status_code == (422 if htmx else 400)
    assert message in text_of(response)


class _FormReader(HTMLParser):
    """Collects what a browser would submit from the one form whose action is ``action``."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action = action
        self.inside = False
        self.found = False
        self.fields: list[tuple[str, str]] = []
        self.buttons: dict[str, str] = {}
        self.controls: set[str] = set()  # every named input, select and textarea, sent or not (buttons too)
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._textarea: str | None = None
        self._text = ""
        self.form_id: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        # The sheet's one-tap quick rolls post to the same URL as the roll panel's form: the panel's is the form.
        if tag == "form" and (a.get("action") or "") == self.action and not self.found and "data-quick-roll" not in a:
            self.inside = self.found = True
            self.form_id = a.get("id") or None
        # A control outside the form belongs to it by form="<its id>" (the tracker's rows fold some under More).
        owned = self.inside or (self.form_id is not None and a.get("form") == self.form_id)
        if tag == "option" and self._select is not None:
            self._options.append((a.get("value", ""), "selected" in a))
            return
        if not owned or "disabled" in a:
            return
        name = a.get("name")
        if tag in ("input", "select", "textarea") and name:
            self.controls.add(name)
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
            elif kind in ("submit", "button", "image", "reset"):
                self.buttons[name] = a.get("value", "")
            else:
                self.fields.append((name, a.get("value", "")))
        elif tag == "button" and name:
            self.buttons[name] = a.get("value", "")
        elif tag == "select" and name:
            self._select, self._options = name, []
        elif tag == "textarea" and name:
            self._textarea, self._text = name, ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._options if selected] or [v for v, _ in self._options[:1]]
            self.fields.extend((self._select, value) for value in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.fields.append((self._textarea, self._text))
            self._textarea = None


def _load_control(response, action: str) -> str | None:
    """The sheet's closed roll controls are placeholders that htmx fills on first opening: if the page holds
    the placeholder of the control posting to ``action``, its markup as the browser loads it (None if not)."""
    try:
        match = resolve(urlsplit(action).path)
    except Resolver404:
        return None
    if match.view_name != "characters:roll":
        return None
    url = reverse("characters:control", kwargs=match.kwargs)
    page = response.content.decode()
    if f'hx-get="{url}"' not in page or getattr(response, "client", None) is None:
        return None
    current = response.wsgi_request.build_absolute_uri()
    loaded = response.client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=current)
    assert loaded.status_code == 200, f"the control at {url} did not load: {loaded.status_code}"
    return loaded.content.decode()


def form_fields(response, action: str, /, extra: dict | None = None, **changes) -> dict[str, list[str]]:
    """The fields a browser would post from the page's form with this ``action``, then ``changes`` on top.

    Posting these instead of a hand-built dict means a broken form (a field pasted into an attribute,
    a renamed input) fails the test that uses it. A roll control the sheet draws only when opened is
    loaded first, as htmx loads it (``_load_control``). A value of None in ``changes`` removes that field; a
    change named like a field without its form's prefix (``helper`` for ``test-helper``) sets that field.
    A change naming a field the form lacks fails the test (the server would read what no person can send);
    a test posting junk on purpose passes it in ``extra``, added as it is.
    """
    reader = _FormReader(action)
    reader.feed(response.content.decode())
    if not reader.found and (loaded := _load_control(response, action)) is not None:
        reader = _FormReader(action)  # a roll control drawn only when opened: read it as the browser loads it
        reader.feed(loaded)
    assert reader.found, f"no form posting to {action} on the page"
    fields: dict[str, list[str]] = {}
    for name, value in reader.fields:
        fields.setdefault(name, []).append(value)
    # An unticked checkbox sends nothing, yet the form has it; a submit button is sent when clicked.
    known = reader.controls | set(reader.buttons)
    for name, value in changes.items():
        # The roll panel names a procedure's inputs "<procedure>-<param>": a change may say just "<param>".
        prefixed = [field for field in known if field.endswith(f"-{name}")]
        if name not in known and len(prefixed) == 1:
            name = prefixed[0]
        assert name in known, f"the form posting to {action} has no field {name!r}; its fields: {sorted(known)}"
        _set(fields, name, value)
    for name, value in (extra or {}).items():
        _set(fields, name, value)
    return fields


def quick_roll_fields(response, stat: str) -> tuple[str, dict[str, list[str]]]:
    """The URL and fields the sheet's quick-roll button beside ``stat`` (its data-quick) posts, as a browser would."""
    page = response.content.decode()
    for match in re.finditer(r"<form[^>]*\bdata-quick-roll\b[^>]*>.*?</form>", page, re.S):
        form = match.group(0)
        if f'data-quick="{stat}"' not in form:
            continue
        action = html.unescape(re.search(r'\baction="([^"]*)"', form).group(1))
        reader = _FormReader(action)
        reader.feed(form.replace("data-quick-roll", "", 1))  # the reader skips quick forms for form_fields
        fields: dict[str, list[str]] = {}
        for name, value in reader.fields:
            fields.setdefault(name, []).append(value)
        # A quick group's form holds a button per roll: the one beside ``stat`` posts its own input.
        button = re.search(rf'<button[^>]*\bdata-quick="{re.escape(stat)}"[^>]*>', form)
        named = button and re.search(r'\bname="([^"]*)"[^>]*\bvalue="([^"]*)"', button.group(0))
        if named:
            fields[html.unescape(named.group(1))] = [html.unescape(named.group(2))]
        return action, fields
    raise AssertionError(f"no quick roll beside {stat} on the page")


def _set(fields: dict[str, list[str]], name: str, value) -> None:
    if value is None:
        fields.pop(name, None)
    else:
        fields[name] = [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


def roll_form(client, character: Character, procedure: str, /, extra: dict | None = None, **changes):
    """The URL of ``character``'s roll ``procedure`` and what its control on the sheet posts (``form_fields``):
    the same fields ask its odds, as the control's odds box sends the form along."""
    url = reverse("characters:roll", args=[character.pk, procedure])
    return url, form_fields(client.get(character.get_absolute_url()), url, extra, **changes)


def sheet_form(client, character: Character, view: str, /, *args, extra: dict | None = None, **changes):
    """The URL of ``characters:<view>`` for ``character`` (then ``args``) and what its form on the sheet posts."""
    url = reverse(f"characters:{view}", args=[character.pk, *args])
    return url, form_fields(client.get(character.get_absolute_url()), url, extra, **changes)
