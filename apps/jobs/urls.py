from django.urls import path

from apps.jobs import views

app_name = "jobs"
urlpatterns = [
    path("", views.job_list, name="list"),
    path("<int:pk>/", views.job_detail, name="detail"),
    path("<int:pk>/progress/", views.job_progress, name="progress"),
    path("<int:pk>/cancel/", views.job_cancel, name="cancel"),
    path("<int:pk>/resume/", views.job_resume, name="resume"),
]

api_urlpatterns = [
    path("jobs/", views.JobListApi.as_view(), name="api-jobs"),
    path("jobs/<id:pk>/", views.JobDetailApi.as_view(), name="api-job"),
]
