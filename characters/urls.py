from django.urls import path

from characters import views

app_name = "characters"
urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", views.create, name="create"),
    path("import/", views.import_view, name="import"),
    path("<int:pk>/", views.sheet, name="sheet"),
    path("<int:pk>/region/<str:name>/", views.region, name="region"),
    path("<int:pk>/adjust/", views.adjust, name="adjust"),
    path("<int:pk>/odds/<str:procedure>/", views.odds, name="odds"),
    path("<int:pk>/roll/<str:procedure>/", views.roll, name="roll"),
    path("<int:pk>/items/", views.item_add, name="item_add"),
    path("<int:pk>/items/<int:item_id>/", views.item_update, name="item_update"),
    path("<int:pk>/items/<int:item_id>/remove/", views.item_remove, name="item_remove"),
    path("<int:pk>/hirelings/", views.hire, name="hire"),
    path("<int:pk>/hirelings/<int:hireling_id>/dismiss/", views.dismiss, name="dismiss"),
    path("<int:pk>/offers/<int:offer_id>/apply/", views.offer_answer, {"answer": "apply"}, name="offer_apply"),
    path("<int:pk>/offers/<int:offer_id>/decline/", views.offer_answer, {"answer": "decline"}, name="offer_decline"),
    path("<int:pk>/rename/", views.rename, name="rename"),
    path("<int:pk>/delete/", views.delete, name="delete"),
    path("<int:pk>/export/", views.export, name="export"),
]
