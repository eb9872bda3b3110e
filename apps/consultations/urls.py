from django.urls import path

from apps.consultations import api, views

app_name = "consultations"
urlpatterns = [
    path("", views.index, name="index"),
    path("inbox/", views.inbox, name="inbox"),
    path("questions/<int:pk>/", views.question_detail, name="question"),
    path("questions/<int:pk>/autosave/", views.question_autosave, name="question-autosave"),
    path("questions/<int:pk>/submit/", views.question_submit, name="question-submit"),
    path("questions/<int:pk>/settle/", views.question_settle, name="question-settle"),
    path("questions/<int:pk>/withdraw/", views.question_withdraw, name="question-withdraw"),
    path("drafts/<int:pk>/", views.draft_detail, name="draft"),
    path("rulebooks/", views.rulebook_list, name="rulebooks"),
    path("rulebooks/<slug:slug>/v<int:number>/", views.version_detail, name="version"),
    path("rulebooks/<slug:slug>/diff/", views.version_diff, name="diff"),
    path("rounds/", views.round_list, name="rounds"),
    path("rounds/<int:pk>/", views.round_detail, name="round"),
    path("rounds/<int:pk>/<str:action>/", views.round_action, name="round-action"),
]

api_urlpatterns = [
    path("consultations/questions/", api.QuestionList.as_view(), name="questions"),
    path("consultations/questions/<id:pk>/answers/", api.AnswerCreate.as_view(), name="answers"),
    path("rulebooks/<slug:slug>/versions/<id:number>/", api.VersionDetail.as_view(), name="rulebook-version"),
]
