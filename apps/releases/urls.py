"""Pages under /releases/ (admins only). No API yet: builds are started from the page or `build_release`."""

from django.urls import path

from apps.releases import views

app_name = "releases"
urlpatterns = [
    path("", views.release_list, name="list"),
    path("new/", views.create, name="create"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/publish/", views.publish, name="publish"),
    path("<int:pk>/download/", views.download, name="download"),
    path("<int:pk>/upload/", views.upload, name="upload"),
    path("<int:pk>/items/<path:item_id>", views.item, name="item"),
    path("diff/<int:old_pk>/<int:new_pk>/", views.diff, name="diff"),
]
api_urlpatterns: list = []
