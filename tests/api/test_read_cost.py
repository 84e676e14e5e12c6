"""What an API read costs the database (issue 39): no lock and no write on the token per call (on SQLite a write
per read queued every API read behind every write), and a sheet read from what the last read kept while the
character has not changed."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import ApiToken
from characters import commands
from characters.models import OfferedChange
from tests.api.conftest import bearer


def _writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))]


def _locks(queries) -> list[str]:
    return [q["sql"] for q in queries if "FOR UPDATE" in q["sql"].upper()]


def test_a_read_writes_the_token_once_a_minute_and_never_locks_it(player, hero):
    api = bearer(player)
    with CaptureQueriesContext(connection) as first:
        assert api.get(f"/api/characters/{hero.pk}").status_code == 200
    assert len(_writes(first.captured_queries)) == 1  # the minute opens: window_start and last_used_at
    assert _locks(first.captured_queries) == []
    used = ApiToken.objects.get(user=player).last_used_at
    assert used is not None
    for _ in range(3):
        with CaptureQueriesContext(connection) as later:
            assert api.get(f"/api/characters/{hero.pk}").status_code == 200
        assert _writes(later.captured_queries) == _locks(later.captured_queries) == []
    assert ApiToken.objects.get(user=player).last_used_at == used  # coarse: once a minute


def test_an_unchanged_sheet_is_read_from_what_the_last_read_kept(player, hero, django_assert_max_num_queries):
    api = bearer(player)
    first = api.get(f"/api/characters/{hero.pk}").json()
    # The token and its owner, the character and the seat, the pending offers: no items, no hirelings.
    with django_assert_max_num_queries(3):
        again = api.get(f"/api/characters/{hero.pk}").json()
    assert again == first
    commands.adjust(commands.editable(player, hero.pk), key="hp", delta=-1, by=player)
    changed = api.get(f"/api/characters/{hero.pk}").json()
    assert changed["version"] == first["version"] + 1
    hp = {t["key"]: t["current"] for t in changed["tracks"]}["hp"]
    assert hp == {t["key"]: t["current"] for t in first["tracks"]}["hp"] - 1


def test_a_kept_answer_is_the_first_answer_as_checked(player, hero, django_assert_max_num_queries):
    """The second read serves the JSON the first one checked against the API's schema, without rebuilding it:
    the token, the character with its seat, the offers."""
    api = bearer(player)
    first = api.get(f"/api/characters/{hero.pk}")
    with django_assert_max_num_queries(3):
        second = api.get(f"/api/characters/{hero.pk}")
    assert second.status_code == 200
    assert second["Content-Type"] == first["Content-Type"] == "application/json; charset=utf-8"
    assert second.json() == first.json()


def test_a_kept_answer_moves_with_what_no_version_keeps(player, gm, hero, campaign):
    """The owner's name, the viewer's seat and the pending offers are the answer's too: each moves it."""
    api = bearer(player)
    before = api.get(f"/api/characters/{hero.pk}").json()
    player.username = "player-renamed"
    player.save(update_fields=["username"])
    assert api.get(f"/api/characters/{hero.pk}").json()["owner"] == "player-renamed"
    OfferedChange.objects.create(
        character=hero,
        offered_by=gm,
        from_character=hero,
        label="Goblin's blow",
        summary="2 harm",
        before={"hp": 4},
        after={"hp": 2},
    )
    offers = api.get(f"/api/characters/{hero.pk}").json()["offers"]
    assert [o["label"] for o in offers] == ["Goblin's blow"]
    OfferedChange.objects.filter(character=hero).update(status=OfferedChange.Status.DECLINED)
    assert api.get(f"/api/characters/{hero.pk}").json()["offers"] == before["offers"] == []
    campaign_api = bearer(gm, "table", campaign)
    as_gm = campaign_api.get(f"/api/characters/{hero.pk}").json()
    assert (before["viewer"]["kind"], as_gm["viewer"]["kind"]) == ("owner", "gm")


def test_a_revoked_token_is_refused_though_its_answer_is_kept(player, hero):
    api = bearer(player)
    assert api.get(f"/api/characters/{hero.pk}").status_code == 200
    ApiToken.objects.filter(user=player).delete()
    assert api.get(f"/api/characters/{hero.pk}").status_code == 401
