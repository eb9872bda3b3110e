"""The project's URLs plus one API view and one page view that raise whichever refusal the test names, so
the two mappings (API exception handler, page middleware) are tested on their own."""

from django.urls import path
from rest_framework.views import APIView

from apps.core.errors import Conflict, FileProblem, FileRefused, Forbidden, InvalidInput, NotFound
from config.urls import urlpatterns as project_urlpatterns

REFUSALS = {
    "not_found": lambda: NotFound("Clip 7 does not exist."),
    "forbidden": lambda: Forbidden("Only the answering expert may approve this."),
    "conflict": lambda: Conflict("You already rated this clip.", code="already_rated"),
    "invalid": lambda: InvalidInput("must be between 1 and 5", field="score"),
    "file": lambda: FileRefused(
        problems=[
            FileProblem(file="manifest.csv", line=3, field="score", reason="must be between 1 and 5"),
            FileProblem(file="manifest.csv", line=9, field="audio", reason="no such file in the zip"),
        ],
        more=2,
    ),
}


class RefuseAPI(APIView):
    def post(self, request, kind):
        raise REFUSALS[kind]()


def refuse_page(request, kind):
    raise REFUSALS[kind]()


urlpatterns = [
    path("test-refuse/api/<str:kind>/", RefuseAPI.as_view()),
    path("test-refuse/page/<str:kind>/", refuse_page),
    *project_urlpatterns,
]
