"""GM notes (issue 16): private notes on the campaign and each character never reach a player; the session
summary is for everyone at the table."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import session
from campaigns.models import GmNote
from live.models import Entry
from tests.conftest import make_character
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db
SECRET = "The innkeeper is the lich"


def _write_notes(client, cc, wren):
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    for url in (
        reverse("campaigns:note_save", args=[cc.pk]),
        reverse("campaigns:character_note_save", args=[cc.pk, wren.pk]),
    ):
        response = client.post(url, form_fields(page, url, text=SECRET), **HTMX)
        assert response.status_code == 200


def test_gm_notes_reach_no_player_page(cc, wren, gm, player, other_player, as_user):
    _write_notes(as_user(gm), cc, wren)
    assert GmNote.objects.count() == 2
    assert text_of(as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))).count(SECRET) == 2
    for user in (player, other_player):
        client = as_user(user)
        for url in (
            reverse("campaigns:detail", args=[cc.pk]),
            wren.get_absolute_url(),
            reverse("campaigns:summary", args=[cc.pk]),
            reverse("campaigns:time", args=[cc.pk]),
            reverse("campaigns:requests", args=[cc.pk]),
            reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]),
            reverse("characters:export", args=[wren.pk]),
        ):
            response = client.get(url)
            assert SECRET not in response.content.decode(), url


def test_the_summary_is_for_everyone_at_the_table(cc, wren, gm, player, as_user):
    page = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))
    url = reverse("campaigns:summary_save", args=[cc.pk])
    as_user(gm).post(url, form_fields(page, url, text="We reached the barrow."), **HTMX)
    assert "We reached the barrow." in text_of(as_user(player).get(reverse("campaigns:detail", args=[cc.pk])))


def test_a_note_too_long_or_on_a_stranger_is_refused(cc, wren, gm, player, as_user):
    client, url = as_user(gm), reverse("campaigns:note_save", args=[cc.pk])
    response = client.post(url, form_fields(client.get(cc.get_absolute_url()), url, text="x" * 5001), **HTMX)
    assert response.status_code == 422 and "at most 5000 characters" in text_of(response)
    loner = make_character(player, None, system="chaos-conquest", name="Loner")
    url = reverse("campaigns:character_note_save", args=[cc.pk, loner.pk])
    response = as_user(gm).post(url, {"text": "hm"}, **HTMX)
    assert response.status_code == 422 and "not at this table" in text_of(response)
    assert not GmNote.objects.exists()


@pytest.mark.parametrize(
    ("who", "notes", "summary_read", "write"),
    [("gm", 200, 200, 200), ("player", 404, 200, 404), ("other_player", 404, 200, 404), ("stranger", 404, 404, 404)],
)
def test_notes_urls_permissions(who, notes, summary_read, write, cc, wren, as_user, request):
    client = as_user(request.getfixturevalue(who))
    assert client.get(reverse("campaigns:notes", args=[cc.pk])).status_code == notes
    assert client.get(reverse("campaigns:summary", args=[cc.pk])).status_code == summary_read
    for url in (
        reverse("campaigns:note_save", args=[cc.pk]),
        reverse("campaigns:character_note_save", args=[cc.pk, wren.pk]),
        reverse("campaigns:summary_save", args=[cc.pk]),
    ):
        assert client.post(url, {"text": "changed"}, **HTMX).status_code == write
    cc.refresh_from_db()
    assert (cc.summary == "changed") == (who == "gm")
    assert GmNote.objects.exists() == (who == "gm")


def test_only_the_gms_pages_hear_that_a_note_changed(cc, wren, gm, player, other_player, monkeypatch):
    """Issue 35 item 8 (a mutant of who hears it passed the suite): a GM note's live signal goes to the campaign's GMs
    alone, every time (on the campaign and on a character); the summary's goes to the whole table."""
    from live.events import NotesChanged, SummaryChanged, gm_only

    heard = Since(cc.pk)
    for character_id in (None, wren.pk):
        session.note_save(campaign_id=cc.pk, character_id=character_id, text=SECRET)
        assert heard.events() == [NotesChanged(seen=gm_only())]
        (note,) = heard.events()
        who = {user.pk: note.seen.lets(user.pk, is_gm=user == gm) for user in (gm, player, other_player)}
        assert who == {gm.pk: True, player.pk: False, other_player.pk: False}
        heard.clear()
    session.summary_save(campaign_id=cc.pk, text="We reached the barrow.")
    assert heard.events() == [SummaryChanged()]
    assert SECRET not in str(Entry.objects.values_list("events", flat=True)) and SECRET not in str(heard.entries())
