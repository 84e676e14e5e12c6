from django.urls import path

import core.converters  # noqa: F401 - registers <id:…>, ids within the database's range
from characters import creation_views, history_views, offline_views, print_views, views

app_name = "characters"
urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", creation_views.create, name="create"),
    path("import/", creation_views.import_view, name="import"),
    path("pregens/", print_views.pregen_list, name="pregens"),
    path("pregens/<str:system>/", print_views.pregen, name="pregen"),
    path("<id:pk>/", views.sheet, name="sheet"),
    path("<id:pk>/print/", print_views.character_print_view, name="print"),
    path("<id:pk>/region/<str:name>/", views.region, name="region"),
    path("<id:pk>/adjust/", views.adjust, name="adjust"),
    path("<id:pk>/offline/", offline_views.sync, name="offline_sync"),
    path("<id:pk>/odds/<str:procedure>/", views.odds, name="odds"),
    path("<id:pk>/roll/<str:procedure>/", views.roll, name="roll"),
    path("<id:pk>/control/<str:procedure>/", views.control, name="control"),
    path("<id:pk>/quick/<str:procedure>/", views.quick, name="quick"),
    path("<id:pk>/items/", views.item_add, name="item_add"),
    path("<id:pk>/catalogue/", views.catalogue, name="catalogue"),
    path("<id:pk>/items/<id:item_id>/", views.item_update, name="item_update"),
    path("<id:pk>/items/<id:item_id>/remove/", views.item_remove, name="item_remove"),
    path("<id:pk>/hirelings/", views.hire, name="hire"),
    path("<id:pk>/hirelings/<id:hireling_id>/dismiss/", views.dismiss, name="dismiss"),
    path("<id:pk>/offers/<id:offer_id>/apply/", views.offer_answer, {"answer": "apply"}, name="offer_apply"),
    path("<id:pk>/offers/<id:offer_id>/decline/", views.offer_answer, {"answer": "decline"}, name="offer_decline"),
    path("<id:pk>/rename/", views.rename, name="rename"),
    path("<id:pk>/edit/", views.edit, name="edit"),
    path("<id:pk>/history/", history_views.history, name="history"),
    path("<id:pk>/history/<id:change_id>/revert/", history_views.revert, name="revert"),
    path("<id:pk>/delete/", views.delete, name="delete"),
    path("<id:pk>/export/", creation_views.export, name="export"),
    path("rolls/<id:roll_id>/", history_views.roll_fix, name="roll_fix"),
]
