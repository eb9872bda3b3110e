from django.urls import path

from apps.verification import api, views

app_name = "verification"

urlpatterns = [
    path("", views.project_list, name="projects"),
    path("upload/", views.upload, name="upload"),
    path("projects/<int:pk>/", views.dashboard, name="dashboard"),
    path("projects/<int:pk>/instructions/", views.instructions, name="instructions"),
    path("projects/<int:pk>/review/", views.review, name="review"),
    path("projects/<int:pk>/review/as-annotator/", views.review_as_annotator, name="review_as_annotator"),
    path("projects/<int:pk>/items/", views.item_list, name="items"),
    path("projects/<int:pk>/export.zip", views.export, name="export"),
    path("projects/<int:pk>/baselines/", views.create_baseline, name="create_baseline"),
    path("projects/<int:pk>/scoring/", views.score_predictions, name="score"),
    path("items/<int:pk>/", views.item_detail, name="item"),
    path("items/<int:pk>/review/", views.submit, name="submit"),
    path("items/<int:pk>/skip/", views.skip, name="skip"),
    path("items/<int:pk>/visual/", views.visual, name="visual"),
    path("baselines/<int:pk>/", views.baseline, name="baseline"),
    path("baselines/<int:pk>/answer/<int:item_pk>/", views.baseline_answer, name="baseline_answer"),
]

api_urlpatterns = [
    path("verification/projects/<id:pk>/next/", api.NextView.as_view(), name="next"),
    path("verification/projects/<id:pk>/summary/", api.SummaryView.as_view(), name="summary"),
    path("verification/items/<id:pk>/", api.ItemView.as_view(), name="item"),
    path("verification/items/<id:pk>/reviews/", api.ReviewView.as_view(), name="reviews"),
]
