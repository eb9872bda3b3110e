from django.urls import path

from apps.authoring import api, views

app_name = "authoring"

urlpatterns = [
    path("", views.set_list, name="sets"),
    path("corpora/upload/", views.upload_corpus, name="upload_corpus"),
    path("sets/<id:pk>/", views.dashboard, name="dashboard"),
    path("sets/<id:pk>/review/", views.review, name="review"),
    path("sets/<id:pk>/author/", views.author, name="author"),
    path("sets/<id:pk>/answer/", views.answer, name="answer"),
    path("sets/<id:pk>/export.zip", views.export, name="export"),
    path("sets/<id:pk>/score/", views.score, name="score"),
    path("sets/<id:pk>/generate/", views.generate, name="generate"),
    path("sets/<id:pk>/instructions/", views.instructions, name="instructions"),
    path("escalations/", views.escalations, name="escalations"),
    path("questions/<id:pk>/resolve/", views.resolve, name="resolve"),
]

api_urlpatterns = [
    path("authoring/sets/<id:pk>/next-review/", api.NextReviewView.as_view(), name="next_review"),
    path("authoring/sets/<id:pk>/next-answer/", api.NextAnswerView.as_view(), name="next_answer"),
    path("authoring/sets/<id:pk>/summary/", api.SummaryView.as_view(), name="summary"),
    path("authoring/questions/<id:pk>/", api.QuestionView.as_view(), name="question"),
    path("authoring/questions/<id:pk>/reviews/", api.ReviewView.as_view(), name="reviews"),
    path("authoring/questions/<id:pk>/answers/", api.AnswerView.as_view(), name="answers"),
    path("authoring/clips/<id:pk>/questions/", api.AuthorView.as_view(), name="author"),
    path("authoring/clips/<id:pk>/playback/", api.PlaybackView.as_view(), name="playback"),
]
