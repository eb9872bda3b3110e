from django.urls import path

from apps.authoring import api, views

app_name = "authoring"

urlpatterns = [
    path("", views.set_list, name="sets"),
    path("corpora/upload/", views.upload_corpus, name="upload_corpus"),
    path("sets/<int:pk>/", views.dashboard, name="dashboard"),
    path("sets/<int:pk>/review/", views.review, name="review"),
    path("sets/<int:pk>/author/", views.author, name="author"),
    path("sets/<int:pk>/answer/", views.answer, name="answer"),
    path("sets/<int:pk>/export.zip", views.export, name="export"),
    path("sets/<int:pk>/score/", views.score, name="score"),
    path("sets/<int:pk>/generate/", views.generate, name="generate"),
    path("escalations/", views.escalations, name="escalations"),
    path("questions/<int:pk>/resolve/", views.resolve, name="resolve"),
]

api_urlpatterns = [
    path("authoring/sets/<int:pk>/next-review/", api.NextReviewView.as_view(), name="next_review"),
    path("authoring/sets/<int:pk>/next-answer/", api.NextAnswerView.as_view(), name="next_answer"),
    path("authoring/sets/<int:pk>/summary/", api.SummaryView.as_view(), name="summary"),
    path("authoring/questions/<int:pk>/", api.QuestionView.as_view(), name="question"),
    path("authoring/questions/<int:pk>/reviews/", api.ReviewView.as_view(), name="reviews"),
    path("authoring/questions/<int:pk>/answers/", api.AnswerView.as_view(), name="answers"),
    path("authoring/clips/<int:pk>/questions/", api.AuthorView.as_view(), name="author"),
    path("authoring/clips/<int:pk>/playback/", api.PlaybackView.as_view(), name="playback"),
]
