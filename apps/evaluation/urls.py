"""Pages under /evaluation/ and the API under /api/evaluation/."""

from django.urls import path

from apps.evaluation import api, views
from apps.evaluation.leaderboard import api as leaderboard_api
from apps.evaluation.leaderboard import views as leaderboard_views

app_name = "evaluation"
urlpatterns = [
    path("runs/", views.run_list, name="runs"),
    path("models/new/", views.create_model, name="create_model"),
    path("runs/new/", views.create_run, name="create_run"),
    path("runs/<id:pk>/", views.run_detail, name="run"),
    path("runs/<id:pk>/responses/", views.import_responses, name="import_responses"),
    path("runs/<id:pk>/collect/", views.collect, name="collect"),
    path("runs/<id:pk>/evaluate/", views.evaluate, name="evaluate"),
    path("runs/<id:pk>/rescore/", views.rescore, name="rescore"),
    path("runs/<id:pk>/items/<id:item_pk>/", views.item_detail, name="item"),
    # The leaderboard (seed 000 Tables 1, 5 and 6), its exports and two runs compared.
    path("leaderboard/", leaderboard_views.board, name="leaderboard"),
    path("leaderboard/export.<str:fmt>", leaderboard_views.export, name="leaderboard_export"),
    path("compare/", leaderboard_views.compare, name="compare"),
]
api_urlpatterns = [
    path("evaluation/models/", api.ModelListView.as_view(), name="models"),
    path("evaluation/models/<id:pk>/", api.ModelDetailView.as_view(), name="model"),
    path("evaluation/runs/", api.RunListView.as_view(), name="runs"),
    path("evaluation/runs/<id:pk>/", api.RunDetailView.as_view(), name="run"),
    path("evaluation/runs/<id:pk>/responses/", api.ResponsesView.as_view(), name="responses"),
    path("evaluation/runs/<id:pk>/collect/", api.CollectView.as_view(), name="collect"),
    path("evaluation/runs/<id:pk>/evaluate/", api.EvaluateView.as_view(), name="evaluate"),
    path("evaluation/runs/<id:pk>/rescore/", api.RescoreView.as_view(), name="rescore"),
    path("evaluation/runs/<id:pk>/items/", api.ItemListView.as_view(), name="items"),
    path("evaluation/runs/<id:pk>/items/<id:item_pk>/", api.ItemDetailView.as_view(), name="item"),
    path("evaluation/leaderboard/", leaderboard_api.LeaderboardView.as_view(), name="leaderboard"),
    path("evaluation/compare/", leaderboard_api.CompareView.as_view(), name="compare"),
]
