from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils.translation import get_language_from_request

from apps.accounts.services import user_set_language


@receiver(user_logged_in)
def take_the_browsers_language_at_first_sign_in(sender, request, user, **kwargs):
    """An account without a language (an admin's, or one made in the Django admin) takes the one its browser
    asks for (Accept-Language, or the login page's switch) the first time its person signs in."""
    if request is not None and not user.language:
        user_set_language(user, get_language_from_request(request))
