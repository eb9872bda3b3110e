"""The real URL map plus one page that fails, to show the friendly 500 page (tests only)."""

from django.urls import path

from config.urls import urlpatterns as real_urlpatterns


def _boom(request):
    raise RuntimeError("a bug on purpose")


urlpatterns = [path("boom/", _boom), *real_urlpatterns]
