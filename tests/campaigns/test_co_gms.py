"""Open tables (issue 42): a campaign has more than one GM. The owner names co-GMs, who run the table as the owner
does; each GM action is journalled with the GM who did it; the owner's seat is handed over with the table's history
kept; a session is formed from who came, with its own GM."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from campaigns import commands, services
from campaigns.models import GM_ROLES, Membership, PlaySession
from campaigns.session.play import current_session
from tests.api.conftest import bearer
from tests.conftest import make_character, make_user
from tests.recorded import Since, commit_pending

pytestmark = pytest.mark.django_db


@pytest.fixture
def co_gm(campaign, gm, player):
    """``player`` named co-GM by the owner ``gm``."""
    commands.set_co_gm(campaign.pk, inputs={"user_id": player.pk, "co_gm": True}, by=gm)
    return player


def test_a_co_gm_runs_the_table_and_the_owners_seat_stays_one(campaign, gm, co_gm, other_player):
    seats = {m.user_id: m for m in campaign.memberships.all()}
    assert seats[co_gm.pk].is_gm and not seats[co_gm.pk].is_owner
    assert seats[gm.pk].is_gm and seats[gm.pk].is_owner
    assert not seats[other_player.pk].is_gm
    assert [m.user_id for m in campaign.memberships.all()] == [gm.pk, co_gm.pk, other_player.pk]  # owner first
    assert set(campaign.memberships.filter(role__in=GM_ROLES).values_list("user_id", flat=True)) == {gm.pk, co_gm.pk}
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.filter(user=co_gm, campaign=campaign).update(role=Membership.Role.GM)  # one owner


def test_only_the_owner_names_co_gms(campaign, gm, co_gm, other_player):
    with pytest.raises(commands.NotTheGm):
        commands.set_co_gm(campaign.pk, inputs={"user_id": other_player.pk, "co_gm": True}, by=co_gm)
    with pytest.raises(commands.NotHere):
        commands.set_co_gm(campaign.pk, inputs={"user_id": other_player.pk, "co_gm": True}, by=other_player)
    with pytest.raises(services.CampaignError, match="owner runs the table already"):
        commands.set_co_gm(campaign.pk, inputs={"user_id": gm.pk, "co_gm": False}, by=gm)
    with pytest.raises(services.CampaignError, match="Pick a person"):
        commands.set_co_gm(campaign.pk, inputs={"user_id": "x"}, by=gm)
    commands.set_co_gm(campaign.pk, inputs={"user_id": co_gm.pk, "co_gm": False}, by=gm)
    assert campaign.memberships.get(user=co_gm).role == Membership.Role.PLAYER


def test_a_co_gm_may_leave_and_the_owner_may_not(campaign, gm, co_gm):
    services.campaign_leave(campaign=campaign, user=co_gm)
    assert not campaign.memberships.filter(user=co_gm).exists()
    with pytest.raises(services.CampaignError, match="hand the GM role"):
        services.campaign_leave(campaign=campaign, user=gm)


def test_handing_the_table_over_keeps_its_history_and_the_old_owner_chooses_their_seat(campaign, gm, player, hero):
    commands.start_session(gm, campaign.pk)
    commands.end_session(gm, campaign.pk, summary="The ford.")
    since = Since(campaign.pk)
    commands.hand_over(campaign.pk, inputs={"user_id": player.pk, "stay": "cogm"}, by=gm)
    roles = dict(campaign.memberships.values_list("user_id", "role"))
    assert roles[player.pk] == "gm" and roles[gm.pk] == "cogm"
    session = PlaySession.objects.get(campaign=campaign)
    assert session.gm == gm and session.summary == "The ford."  # the evening the old owner ran is still theirs
    assert [entry.by_id for entry in since.entries()] == [gm.pk]
    with pytest.raises(commands.NotTheGm):  # no longer the owner
        commands.hand_over(campaign.pk, inputs={"user_id": gm.pk}, by=gm)
    commands.hand_over(campaign.pk, inputs={"user_id": gm.pk, "stay": "player"}, by=player)
    assert dict(campaign.memberships.values_list("user_id", "role"))[player.pk] == "player"
    with pytest.raises(services.CampaignError, match="co-GM or a player"):
        commands.hand_over(campaign.pk, inputs={"user_id": player.pk, "stay": "gm"}, by=gm)


def test_every_gm_action_is_journalled_with_the_gm_who_did_it(campaign, gm, co_gm, other_player):
    make_character(other_player, campaign, name="Ash")
    since = Since(campaign.pk)
    actions = [
        lambda: commands.move_clock(campaign.pk, inputs={"action": "advance", "minutes": 10}, by=co_gm),
        lambda: commands.set_daylight(campaign.pk, inputs={"daylight": False}, by=co_gm),
        lambda: commands.save_note(campaign.pk, inputs={"text": "The vault floods at dusk."}, by=co_gm),
        lambda: commands.save_summary(campaign.pk, inputs={"text": "Into the vault."}, by=co_gm),
        lambda: commands.ENCOUNTER_COMMANDS["start"](campaign.pk, inputs={"name": "Rats"}, by=co_gm),
        lambda: commands.ENCOUNTER_COMMANDS["end"](campaign.pk, inputs={}, by=co_gm),
        lambda: commands.start_session(co_gm, campaign.pk),
        lambda: services.campaign_regenerate_invite(campaign=campaign, by=co_gm),
    ]
    for action in actions:
        action()
        commit_pending()  # each its own write, as each is its own request
    entries = since.entries()
    assert len(entries) == len(actions)
    assert {entry.by_id for entry in entries} == {co_gm.pk}


def test_a_session_is_formed_from_who_came_and_run_by_one_of_the_tables_gms(campaign, gm, co_gm, other_player, hero):
    ash = make_character(other_player, campaign, name="Ash", seed=11)
    with pytest.raises(services.CampaignError, match="at least one"):
        commands.start_session(gm, campaign.pk, {"picked": "on"})
    stranger = make_user("stranger")
    with pytest.raises(services.CampaignError, match="one of the table's GMs"):
        commands.start_session(gm, campaign.pk, {"present": [ash.pk], "gm": other_player.pk})
    with pytest.raises(services.CampaignError, match="one of the table's GMs"):
        commands.start_session(gm, campaign.pk, {"present": [ash.pk], "gm": stranger.pk})
    elsewhere = make_character(stranger, name="Nobody")
    with pytest.raises(services.CampaignError, match="characters at this table"):
        commands.start_session(gm, campaign.pk, {"present": [ash.pk, elsewhere.pk]})
    with pytest.raises(services.CampaignError, match="characters at this table"):
        commands.start_session(gm, campaign.pk, {"present": ["x"]})
    assert current_session(campaign) is None  # nothing half-made
    session = commands.start_session(gm, campaign.pk, {"present": [str(ash.pk)], "gm": str(co_gm.pk)})
    assert session.gm == co_gm and session.started_by == gm
    assert [p["name"] for p in session.present] == ["Ash"]
    # The roster stays the table's: Wren is still at it, and in the next session if she comes.
    assert set(campaign.characters.values_list("name", flat=True)) == {"Wren", "Ash"}
    commands.end_session(co_gm, campaign.pk)
    assert [p["name"] for p in commands.start_session(co_gm, campaign.pk).present] == ["Ash", "Wren"]


def test_the_api_doors_name_co_gms_and_hand_the_table_over(campaign, gm, player, other_player):
    owner = bearer(gm, "table", campaign)
    answer = owner.send(f"/api/campaigns/{campaign.pk}/co-gms", {"user_id": player.pk, "co_gm": True})
    assert answer.status_code == 200 and answer.json()["changed"] == ["members", "roles"]
    co_gm = bearer(player, "table", campaign, name="co-gm")
    answer = co_gm.send(f"/api/campaigns/{campaign.pk}/co-gms", {"user_id": other_player.pk, "co_gm": True})
    assert answer.status_code == 403 and "owner" in answer.json()["detail"]
    started = co_gm.post(f"/api/campaigns/{campaign.pk}/sessions/start")
    assert started.status_code == 200 and started.json()["gm"] == "player"
    answer = owner.send(f"/api/campaigns/{campaign.pk}/hand-over", {"user_id": player.pk, "stay": "cogm"})
    assert answer.status_code == 200
    assert dict(campaign.memberships.values_list("user_id", "role")) == {
        gm.pk: "cogm",
        player.pk: "gm",
        other_player.pk: "player",
    }


def test_the_chronicle_names_the_gm_who_rolled_when_it_is_not_the_sessions_own(campaign, gm, co_gm, hero):
    from campaigns.chronicle.read import records

    commands.start_session(co_gm, campaign.pk)
    for by in (co_gm, gm):
        commands.gm_roll(campaign.pk, inputs={"count": 1, "sides": 6, "modifier": 0, "visibility": "public"}, by=by)
        commit_pending()
    session = commands.end_session(co_gm, campaign.pk)
    # The session's own GM is "GM"; the owner, who did not run this one, by name.
    assert [roll.who for roll in records(session, campaign).rolls] == ["GM", "GM gm"]
