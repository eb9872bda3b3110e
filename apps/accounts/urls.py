from django.contrib.auth import views as auth_views
from django.urls import path
from django.views.i18n import JavaScriptCatalog

from apps.accounts import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("language/", views.choose_language, name="choose-language"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
]
