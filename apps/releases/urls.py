"""Pages under /releases/ and the API under /api/releases/ (admins only)."""

from django.urls import path

from apps.releases import api, views

app_name = "releases"
urlpatterns = [
    path("", views.release_list, name="list"),
    path("new/", views.create, name="create"),
    path("<id:pk>/", views.detail, name="detail"),
    path("<id:pk>/publish/", views.publish, name="publish"),
    path("<id:pk>/download/", views.download, name="download"),
    path("<id:pk>/upload/", views.upload, name="upload"),
    path("<id:pk>/items/<path:item_id>", views.item, name="item"),
    path("diff/<id:old_pk>/<id:new_pk>/", views.diff, name="diff"),
]
api_urlpatterns = [
    path("releases/", api.ReleaseListView.as_view(), name="list"),
    path("releases/<id:pk>/", api.ReleaseDetailView.as_view(), name="detail"),
    path("releases/<id:pk>/publish/", api.PublishView.as_view(), name="publish"),
    path("releases/<id:pk>/archive/", api.ArchiveView.as_view(), name="archive"),
    path("releases/diff/<id:old_pk>/<id:new_pk>/", api.DiffView.as_view(), name="diff"),
]
