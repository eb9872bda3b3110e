from django.urls import path

from apps.transfer import stage_views, views

app_name = "transfer"
urlpatterns = [
    path("", views.home, name="home"),
    path("import/", views.import_upload, name="import"),
    path("ground-truth/", views.ground_truth, name="ground_truth"),
    path("ground-truth/<slug:name>/retry-attention/", views.retry_attention, name="retry_attention"),
    path("ground-truth/corrections/", views.corrections, name="corrections"),
    path("ground-truth/corrections/<int:pk>/overturn/", views.overturn, name="overturn"),
    path("translations/", stage_views.translation_runs, name="translation_runs"),
    path("translations/<int:pk>/", stage_views.translation_run, name="translation_run"),
    path("translations/<int:pk>/continue/", stage_views.continue_run, name="continue_run"),
    path("translations/output/<int:pk>/", stage_views.translation_detail, name="translation_detail"),
    path("normalize/", stage_views.normalize_page, name="normalize"),
]
api_urlpatterns: list = []
