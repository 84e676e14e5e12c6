from django.urls import path

import core.converters  # noqa: F401 - registers <id:…>, ids within the database's range
from campaigns import backup_views, session_views, views
from live import stream

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/", views.join_by_form, name="join_form"),
    path("restore/", backup_views.backup_import, name="backup_import"),
    path("join/<str:code>/", views.campaign_join, name="join"),
    path("<id:pk>/", views.campaign_detail, name="detail"),
    path("<id:pk>/backup/", backup_views.backup_export, name="backup_export"),
    path("<id:pk>/invite/", views.regenerate_invite, name="regenerate_invite"),
    path("<id:pk>/remove/", views.remove_player, name="remove_player"),
    path("<id:pk>/transfer/", views.transfer_gm, name="transfer_gm"),
    path("<id:pk>/leave/", views.leave, name="leave"),
    path("<id:pk>/events/", stream.events, name="events"),
    path("<id:pk>/region/<str:name>/", views.table_region, name="region"),
    path("<id:pk>/cards/<id:character_id>/", views.card, name="card"),
    path("<id:pk>/cards/<id:character_id>/adjust/", views.card_adjust, name="card_adjust"),
    path("<id:pk>/rolls/", views.older_rolls, name="older_rolls"),
    path("<id:pk>/roll/", views.gm_roll, name="gm_roll"),
    path("<id:pk>/roll/odds/", views.gm_roll_odds, name="gm_roll_odds"),
    path("<id:pk>/roll/<slug:procedure>/", views.table_roll, name="table_roll"),
    path("<id:pk>/roll/<slug:procedure>/odds/", views.table_roll_odds, name="table_roll_odds"),
    path("<id:pk>/clock/", views.move_clock, name="clock"),
    path("<id:pk>/settings/", views.rule_settings, name="settings"),
    path("<id:pk>/settings/apply/<id:character_id>/", views.apply_settings, name="apply_settings"),
    path("<id:pk>/settings/dice/", views.hand_dice, name="hand_dice"),
    path("<id:pk>/catalogue-updates/", views.catalogue_updates, name="catalogue_updates"),
    # Running a session (issue 16)
    path("<id:pk>/requests/", session_views.requests_region, name="requests"),
    path("<id:pk>/requests/form/", session_views.request_fields, name="request_fields"),
    path("<id:pk>/requests/new/", session_views.request_new, name="request_new"),
    path("<id:pk>/requests/odds/", session_views.request_odds, name="request_odds"),
    path("<id:pk>/requests/<id:request_id>/cancel/", session_views.request_cancel, name="request_cancel"),
    path(
        "<id:pk>/requests/<id:request_id>/answer/<id:character_id>/",
        session_views.request_answer,
        name="request_answer",
    ),
    path(
        "<id:pk>/requests/<id:request_id>/odds/<id:character_id>/",
        session_views.request_answer_odds,
        name="request_answer_odds",
    ),
    path("<id:pk>/encounter/", session_views.encounter_region, name="encounter"),
    path("<id:pk>/encounter/<slug:action>/", session_views.encounter_action, name="encounter_action"),
    path("<id:pk>/npcs/<id:npc_id>/<slug:action>/", session_views.npc_action, name="npc_action"),
    path("<id:pk>/hits/<id:hit_id>/undo/", session_views.hit_undo, name="hit_undo"),
    path("<id:pk>/time/", session_views.time_region, name="time"),
    path("<id:pk>/time/advance/", session_views.time_advance, name="time_advance"),
    path("<id:pk>/time/daylight/", session_views.time_daylight, name="time_daylight"),
    path("<id:pk>/notes/", session_views.notes_region, name="notes"),
    path("<id:pk>/notes/save/", session_views.note_save, name="note_save"),
    path("<id:pk>/notes/<id:character_id>/save/", session_views.note_save, name="character_note_save"),
    path("<id:pk>/summary/", session_views.summary_region, name="summary"),
    path("<id:pk>/summary/save/", session_views.summary_save, name="summary_save"),
    path("<id:pk>/sheet-requests/<id:character_id>/", session_views.sheet_requests, name="sheet_requests"),
    path("<id:pk>/sheet-fight/<id:character_id>/", session_views.sheet_fight, name="sheet_fight"),
]
