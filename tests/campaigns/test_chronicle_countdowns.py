"""Issues 40 and 41 crossed: a countdown that moved in a session is in its chronicle, each reader seeing only the
ticks the journal let them see (a hidden countdown never reaches a player), under its name unless that is hidden,
with its progress unless that is."""

from __future__ import annotations

import pytest

from campaigns import commands
from campaigns.chronicle.build import CountdownRecord, Reader, countdown_item
from campaigns.chronicle.read import records
from campaigns.models import Countdown, Membership
from live.events import PUBLIC, gm_only

GM = Reader(1, True)
PLAYER = Reader(2, False)


def ritual(shown: str, *ticks) -> CountdownRecord:
    return CountdownRecord(7, "Ritual completes", 6, 3, shown, ticks or (PUBLIC, PUBLIC, PUBLIC))


@pytest.mark.parametrize(
    ("shown", "player_reads"),
    [
        ("all", "Ritual completes moved on, now 3 of 6"),
        ("name_hidden", "A countdown moved on, now 3 of 6"),
        ("progress_hidden", "Ritual completes moved on"),
    ],
)
def test_a_player_reads_what_the_countdown_shows_them(shown, player_reads):
    assert countdown_item(ritual(shown), PLAYER).text == player_reads
    assert countdown_item(ritual(shown), GM).text == "Ritual completes moved on, now 3 of 6"


def test_ticks_the_journal_kept_from_players_are_not_theirs_to_read():
    hidden = ritual("gm", gm_only(), gm_only())
    assert countdown_item(hidden, PLAYER) is None
    told = countdown_item(hidden, GM)
    assert told is not None and (told.text, told.seen_by) == ("Ritual completes moved on, now 3 of 6", "GM only")


def test_a_filled_countdown_says_it_is_complete():
    done = CountdownRecord(7, "Ritual completes", 2, 2, "all", (PUBLIC, PUBLIC))
    assert countdown_item(done, PLAYER).text == "Ritual completes moved on, now 2 of 2 (complete)"


@pytest.mark.django_db
def test_a_session_s_chronicle_tells_each_reader_the_countdowns_they_could_see(campaign, gm, player):
    seat = Membership.objects.select_related("campaign").get(user=gm, campaign=campaign)
    commands.start_session(gm, campaign.pk)
    for name, shown in (("Ritual completes", "gm"), ("The bridge gives way", "all")):
        commands.make_countdown(seat, name=name, segments=4, shown=shown, every_minutes=None, by=gm)
        made = Countdown.objects.get(campaign=campaign, name=name)
        commands.tick_countdown(seat, countdown_id=made.pk, by=gm, step=1)
        commands.tick_countdown(seat, countdown_id=made.pk, by=gm, step=1)
    done = commands.end_session(gm, campaign.pk)

    read = records(done)
    as_gm = "\n".join(item.text for s in read.for_reader(Reader(gm.pk, True)).sections for item in s.items)
    as_player = "\n".join(item.text for s in read.for_reader(Reader(player.pk, False)).sections for item in s.items)
    assert "Ritual completes moved on, now 2 of 4" in as_gm
    assert "The bridge gives way moved on, now 2 of 4" in as_gm
    assert "The bridge gives way moved on, now 2 of 4" in as_player
    assert "Ritual" not in as_player
