from django.urls import path

from apps.transfer import views

app_name = "transfer"
urlpatterns = [
    path("", views.home, name="home"),
    path("import/", views.import_upload, name="import"),
    path("ground-truth/", views.ground_truth, name="ground_truth"),
    path("ground-truth/<slug:name>/retry-attention/", views.retry_attention, name="retry_attention"),
    path("ground-truth/corrections/", views.corrections, name="corrections"),
    path("ground-truth/corrections/<int:pk>/overturn/", views.overturn, name="overturn"),
]
api_urlpatterns: list = []
