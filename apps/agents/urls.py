from django.urls import path

from apps.agents import views

app_name = "agents"
urlpatterns = [
    path("", views.overview, name="overview"),
    path("calls/<int:pk>/", views.call_detail, name="call_detail"),
    path("roles/<str:role>/check/", views.check, name="check"),
]
api_urlpatterns: list = []
