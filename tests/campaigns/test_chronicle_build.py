"""Issue 40: the chronicle's pure function over plain records (no database): who sees which roll, a blind roll's
line whatever it showed, private fields, reverts, voids and players' lines."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from campaigns.chronicle.build import (
    ChangeRecord,
    FightRecord,
    LineRecord,
    Present,
    Reader,
    RollRecord,
    SessionRecord,
    build,
    minutes_words,
    roll_view,
)

OWNER, PEER, GM = 1, 2, 3
AT = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
SESSION = SessionRecord(
    number=4,
    campaign="The Sunken Vault",
    started_at=AT,
    ended_at=AT.replace(hour=23, minute=5),
    minutes=150,
    present=(Present(10, "Wren", OWNER, "alice"), Present(11, "Ash", PEER, "bob")),
    summary="We found the vault.",
)


def roll(pk: int, visibility: str = "public", outcome: str = "critical", roller: int = OWNER, **more) -> RollRecord:
    fields = {
        "id": pk,
        "character": 10,
        "who": "Wren",
        "roller": roller,
        "label": "Attack",
        "procedure": "attack",
        "outcome": outcome,
        "outcome_words": outcome.replace("_", " "),
        "summary": f"roll {pk}",
        "visibility": visibility,
    }
    return RollRecord(**{**fields, **more})


@pytest.mark.parametrize(
    ("visibility", "owner", "peer", "gm"),
    [
        ("public", "full", "full", "full"),
        ("gm", "full", None, "full"),
        ("private", "full", None, None),
        ("blind", "line", None, "full"),
        ("whatever", None, None, None),
    ],
)
def test_who_sees_a_roll_its_owner_rolled(visibility, owner, peer, gm):
    made = roll(1, visibility)
    assert roll_view(made, Reader(OWNER)) == owner
    assert roll_view(made, Reader(PEER)) == peer
    assert roll_view(made, Reader(GM, is_gm=True)) == gm


def test_the_text_of_a_small_evening_per_reader():
    rolls = [roll(1), roll(2, "gm"), roll(3, "blind"), roll(4, outcome="pass"), roll(5, voided=True, void_reason="x")]
    fights = [FightRecord(7, "Goblins", 2, False, 3, 3)]
    lines = [LineRecord(1, "roll-1", OWNER, "alice", "Ha!"), LineRecord(2, "roll-2", GM, "gm", "Only us.")]
    texts = {who: build(SESSION, rolls, [], fights, lines, reader).text() for who, reader in READERS.items()}
    head = (
        "Session 4 of The Sunken Vault\n2026-11-27 20:00 UTC to 23:05\nPresent: Ash (bob), Wren (alice)\n"
        "Time passed: 2 hours, 30 minutes\n"
    )
    tail = "\nFights\n- Goblins: 2 rounds, 3 of 3 foes defeated; won\n\nSummary\nWe found the vault."
    assert texts["owner"] == head + (
        "Rolls: 5\n\nWhat mattered\n- Wren: Attack — critical (roll 1) [critical]\n"
        '  > alice: "Ha!"\n'
        "- Wren: Attack — critical (roll 2) [critical] (GM only)\n"
        '  > gm: "Only us."\n'
        "- Wren: Attack — critical (roll 5); voided: x [critical] — VOIDED\n\n"
        "Rolled blind\n- Wren: Attack — rolled blind; the GM has the result (blind)\n" + tail
    )
    assert texts["peer"] == head + (
        "Rolls: 3\n\nWhat mattered\n- Wren: Attack — critical (roll 1) [critical]\n"
        '  > alice: "Ha!"\n'
        "- Wren: Attack — critical (roll 5); voided: x [critical] — VOIDED\n" + tail
    )
    assert texts["gm"] == head + (
        "Rolls: 5\n\nWhat mattered\n- Wren: Attack — critical (roll 1) [critical]\n"
        '  > alice: "Ha!"\n'
        "- Wren: Attack — critical (roll 2) [critical] (GM only)\n"
        '  > gm: "Only us."\n'
        "- Wren: Attack — critical (roll 3) [critical] (blind)\n"
        "- Wren: Attack — critical (roll 5); voided: x [critical] — VOIDED\n" + tail
    )


READERS = {"owner": Reader(OWNER), "peer": Reader(PEER), "gm": Reader(GM, is_gm=True)}


def test_a_blind_rolls_line_does_not_depend_on_what_it_showed():
    dull, grand = roll(3, "blind", outcome="fail"), roll(3, "blind", outcome="dead")
    for reader in READERS.values():
        if reader.is_gm:
            continue
        assert build(SESSION, [dull], [], [], [], reader).text() == build(SESSION, [grand], [], [], [], reader).text()


def change(pk: int, before: dict, after: dict, **more) -> ChangeRecord:
    return ChangeRecord(id=pk, character=10, who="Wren", owner=OWNER, what="Edited", before=before, after=after, **more)


def test_private_fields_stay_with_the_owner_and_the_gm():
    purse = change(1, {"state": {"coins": 5}}, {"state": {"coins": 50}}, private=("coins",))
    for who, reader in READERS.items():
        text = build(SESSION, [], [purse], [], [], reader).text()
        assert ("Wren gained 45 coin" in text) == (who != "peer"), who


def test_a_reverted_change_is_told_as_reverted_and_its_revert_is_not_told_again():
    hired = ChangeRecord(id=1, character=10, who="Wren", owner=OWNER, what="Hired Hob", before={}, after={})
    undo = change(2, {"state": {"coins": 1}}, {"state": {"coins": 9}}, reverts=1)
    text = build(SESSION, [], [hired, undo], [], [], READERS["peer"]).text()
    assert "- Wren hired Hob — REVERTED" in text and "gained" not in text


def test_a_change_made_by_a_roll_goes_where_the_roll_goes():
    secret = roll(9, "gm", outcome="pass")
    gold = change(1, {"state": {"coins": 0}}, {"state": {"coins": 30}}, roll=9)
    assert "gained 30 coin" in build(SESSION, [secret], [gold], [], [], READERS["gm"]).text()
    assert "gained" not in build(SESSION, [secret], [gold], [], [], READERS["peer"]).text()


def test_deaths_scars_levels_and_lights_from_a_sheets_change():
    died = change(1, {"state": {"dead": False, "level": 1}}, {"state": {"dead": True, "level": 2}})
    torch = {"id": 4, "name": "Torch", "kind": "light", "quantity": 2, "data": {"lit": True}}
    burnt = change(2, {"items": [torch]}, {"items": [{**torch, "quantity": 1, "data": {"lit": False}}]})
    text = build(SESSION, [], [died, burnt], [], [], READERS["peer"]).text()
    assert "- Wren reached level 2 [level-up]" in text and "- Wren died [death]" in text
    assert "Lights burnt\n- Wren's Torch burnt out" in text


def test_a_line_on_an_entry_the_reader_cannot_see_is_not_shown():
    lines = [LineRecord(1, "roll-2", GM, "gm", "Secret line")]
    assert "Secret line" not in build(SESSION, [roll(2, "gm")], [], [], lines, READERS["peer"]).text()
    assert "Secret line" in build(SESSION, [roll(2, "gm")], [], [], lines, READERS["gm"]).text()


@pytest.mark.parametrize(
    ("minutes", "words"), [(0, "none"), (1, "1 minute"), (61, "1 hour, 1 minute"), (1500, "1 day, 1 hour")]
)
def test_time_passed_in_words(minutes, words):
    assert minutes_words(minutes) == words
