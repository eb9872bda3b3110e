from django.urls import path

from apps.speech import views

app_name = "speech"
urlpatterns = [
    path("", views.home, name="home"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("samples/<int:pk>/", views.sample_audit, name="sample"),
    path("samples/<int:pk>/accept/", views.accept, name="accept"),
    path("samples/<int:pk>/rerun/", views.edit_rerun, name="rerun"),
]
api_urlpatterns: list = []
