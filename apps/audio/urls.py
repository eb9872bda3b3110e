from django.urls import path

from apps.audio import views

app_name = "audio"
urlpatterns = [path("<uuid:public_id>/", views.serve_audio, name="serve")]
