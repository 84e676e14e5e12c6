"""Campaign writes return what they changed (issue 24): a ``TableWritten`` with the campaign as the write left it,
the regions it announced (exactly what it recorded in the journal) and the row it made, so a view answers without
reading anything back."""

from __future__ import annotations

import pytest

from campaigns import services, session
from campaigns.models import GmNote, Npc, RollRequest
from campaigns.services import TableWritten
from tests.recorded import Since

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(cc):
    """What every write records in the table's journal, read as the topics it names (tests/recorded.py)."""
    return Since(cc.pk)


def _announced(written: TableWritten, sent: Since) -> None:
    assert isinstance(written, TableWritten)
    assert written.regions == frozenset(sent.topics()), "the regions returned are what it recorded, no more, no less"
    assert len(sent.entries()) == (1 if written.regions else 0)  # one write, one entry (none when nothing moved)
    sent.clear()


def test_session_writes_return_their_campaign_regions_and_row(cc, wren, gm, sent):
    written = session.note_save(campaign_id=cc.pk, character_id=wren.pk, text="Owes the miller")
    assert isinstance(written.row, GmNote) and written.campaign.pk == cc.pk
    _announced(written, sent)

    written = session.summary_save(campaign_id=cc.pk, text="The barrow opened.")
    assert written.campaign.summary == "The barrow opened."  # as the write left it: the view shows this row
    _announced(written, sent)

    written = session.set_daylight(campaign_id=cc.pk, daylight=False)
    assert written.campaign.daylight is False and {"table", "light"} <= written.regions
    _announced(written, sent)

    written = session.npc_add(campaign_id=cc.pk, name="Ghoul", stats={}, to_encounter=False, keep=True)
    assert isinstance(written.row, Npc) and written.regions == frozenset(session.FIGHT)
    _announced(written, sent)

    written = session.request_create(
        campaign_id=cc.pk, procedure="save", fixed={}, character_ids=[wren.pk], minutes=30, by=gm
    )
    asked = written.row
    assert isinstance(asked, RollRequest) and f"character-{wren.pk}-requests" in written.regions
    _announced(written, sent)

    written = session.request_cancel(request_id=asked.pk, campaign_id=cc.pk)
    assert written.row.status == RollRequest.Status.CANCELLED and written.campaign.pk == cc.pk
    _announced(written, sent)


def test_a_fight_returns_its_encounter_and_how_it_ended(cc, wren, gm):
    started = session.encounter_start(campaign_id=cc.pk, name="Ghouls", by=gm)
    assert started.row.active and set(session.FIGHT) <= started.regions
    assert started.campaign.round == 1
    ended = session.encounter_end(campaign_id=cc.pk, by=gm)
    assert isinstance(ended.row, session.FightEnded) and ended.row.encounter.pk == started.row.pk
    assert ended.campaign.round == 0 and ended.campaign.game_minutes == ended.row.minutes
    if ended.row.asked is not None:  # the system's end-of-combat roll, asked of every PC
        assert f"character-{wren.pk}-requests" in ended.regions


def test_the_clock_returns_what_happened_and_the_campaign_as_it_left_it(cc, wren, gm):
    written = session.clock_advance(campaign_id=cc.pk, unit="turn", count=1, by=gm)
    assert written.campaign.game_minutes > 0 and isinstance(written.row, list)
    assert {"table", "light"} <= written.regions


def test_campaign_services_return_what_they_changed(cc, gm, player, other_player, sent):
    written = services.campaign_regenerate_invite(campaign=cc)
    assert written.campaign.invite_code != "" and written.regions == {"members"}
    _announced(written, sent)

    written = services.campaign_change_settings(campaign_id=cc.pk, values={}, by=gm)
    assert written.row == [] and written.regions == frozenset()  # nothing moved: nothing logged or announced
    _announced(written, sent)

    written = services.campaign_move_clock(campaign_id=cc.pk, action="advance", minutes=10)
    assert written.campaign.game_minutes == 10
    _announced(written, sent)

    written = services.campaign_leave(campaign=cc, user=other_player)
    _announced(written, sent)

    written = services.campaign_transfer_gm(campaign=cc, to_user_id=player.pk)
    assert written.row.user_id == player.pk and written.regions == {"members", "roles"}
    _announced(written, sent)
