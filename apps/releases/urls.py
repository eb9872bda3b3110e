"""Pages under /releases/ and the API under /api/releases/ (admins only)."""

from django.urls import path

from apps.releases import api, views

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
api_urlpatterns = [
    path("releases/", api.ReleaseListView.as_view(), name="list"),
    path("releases/<int:pk>/", api.ReleaseDetailView.as_view(), name="detail"),
    path("releases/<int:pk>/publish/", api.PublishView.as_view(), name="publish"),
    path("releases/<int:pk>/archive/", api.ArchiveView.as_view(), name="archive"),
    path("releases/diff/<int:old_pk>/<int:new_pk>/", api.DiffView.as_view(), name="diff"),
]
