from django.utils import translation


class UserLanguageMiddleware:
    """A signed-in person reads Sori in their own language (User.language), whatever the browser asks for;
    LocaleMiddleware, earlier, chose from the language cookie or Accept-Language for everyone else (and for a
    person who has no language yet)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        language = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)
