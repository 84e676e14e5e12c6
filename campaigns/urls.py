from django.urls import path

from campaigns import stream, views

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/", views.join_by_form, name="join_form"),
    path("join/<str:code>/", views.campaign_join, name="join"),
    path("<int:pk>/", views.campaign_detail, name="detail"),
    path("<int:pk>/invite/", views.regenerate_invite, name="regenerate_invite"),
    path("<int:pk>/remove/", views.remove_player, name="remove_player"),
    path("<int:pk>/transfer/", views.transfer_gm, name="transfer_gm"),
    path("<int:pk>/leave/", views.leave, name="leave"),
    path("<int:pk>/events/", stream.events, name="events"),
    path("<int:pk>/region/<str:name>/", views.table_region, name="region"),
    path("<int:pk>/cards/<int:character_id>/", views.card, name="card"),
    path("<int:pk>/cards/<int:character_id>/adjust/", views.card_adjust, name="card_adjust"),
    path("<int:pk>/rolls/", views.older_rolls, name="older_rolls"),
    path("<int:pk>/roll/", views.gm_roll, name="gm_roll"),
    path("<int:pk>/roll/odds/", views.gm_roll_odds, name="gm_roll_odds"),
    path("<int:pk>/clock/", views.move_clock, name="clock"),
]
