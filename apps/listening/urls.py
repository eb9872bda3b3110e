"""Pages under /listening/ and the API under /api/listening/ (paths fixed by the issue's contract)."""

from django.urls import path

from apps.listening import api, views

app_name = "listening"
urlpatterns = [
    path("", views.index, name="index"),
    path("tests/<int:pk>/", views.start, name="start"),
    path("tests/<int:pk>/rate/", views.rate, name="rate"),
    path("tests/<int:pk>/clips/<int:clip_pk>/rate/", views.submit_rating, name="submit_rating"),
    path("manage/", views.manage, name="manage"),
    path("manage/import/", views.import_test, name="import"),
    path("manage/import/jobs/<int:job_pk>/", views.import_status, name="import_status"),
    path("manage/tests/<int:pk>/", views.dashboard, name="dashboard"),
    path("manage/tests/<int:pk>/import/resume/", views.resume_import, name="resume_import"),
    path("manage/tests/<int:pk>/import/discard/", views.discard_import, name="discard_import"),
    path("manage/tests/<int:pk>/listeners/<int:user_pk>/exclude/", views.exclude, name="exclude"),
    path("manage/tests/<int:pk>/splits/", views.make_splits, name="splits"),
    path("manage/tests/<int:pk>/publish/", views.publish, name="publish"),
    path("manage/tests/<int:pk>/instructions/", views.instructions, name="instructions"),
    path("manage/tests/<int:pk>/export.zip", views.download, name="download"),
    path("manage/tests/<int:pk>/predictions/", views.upload_predictions, name="predictions"),
    path("manage/tests/<int:pk>/evaluation/", views.evaluation, name="evaluation"),
    path("manage/tests/<int:pk>/predictors/<int:predictor_pk>/delete/", views.delete_predictor, name="delete_predictor"),
]

api_urlpatterns = [
    path("listening/tests/<id:pk>/next/", api.NextClipView.as_view(), name="next"),
    path("listening/clips/<id:pk>/playback/", api.PlaybackView.as_view(), name="playback"),
    path("listening/clips/<id:pk>/ratings/", api.RatingView.as_view(), name="ratings"),
    path("listening/tests/<id:pk>/summary/", api.SummaryView.as_view(), name="summary"),
]
