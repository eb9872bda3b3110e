from django.urls import path

from apps.transfer import views
from apps.transfer.ground_truth import views as ground_truth
from apps.transfer.hypertranslation import views as hypertranslation
from apps.transfer.normalization import views as normalization

app_name = "transfer"
urlpatterns = [
    path("", views.home, name="home"),
    path("import/", views.import_upload, name="import"),
    path("import/audio/", views.import_audio, name="import_audio"),
    path("ground-truth/", ground_truth.ground_truth, name="ground_truth"),
    path("ground-truth/<slug:name>/retry-attention/", ground_truth.retry_attention, name="retry_attention"),
    path("ground-truth/corrections/", ground_truth.corrections, name="corrections"),
    path("ground-truth/corrections/<int:pk>/overturn/", ground_truth.overturn, name="overturn"),
    path("translations/", hypertranslation.translation_runs, name="translation_runs"),
    path("translations/<int:pk>/", hypertranslation.translation_run, name="translation_run"),
    path("translations/<int:pk>/continue/", hypertranslation.continue_run, name="continue_run"),
    path("translations/output/<int:pk>/", hypertranslation.translation_detail, name="translation_detail"),
    path("normalize/", normalization.normalize_page, name="normalize"),
]
api_urlpatterns: list = []
