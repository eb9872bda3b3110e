from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from apps.accounts.demo import demo_password
from apps.accounts.models import User
from apps.accounts.navigation import home_panels, pipelines, todos
from apps.accounts.services import user_set_language

# One demo login per role, listed on the login page in demo mode.
DEMO_LOGINS = [("admin", "admin"), ("listener1", "listener"), ("annotator1", "annotator"), ("expert", "expert")]


@login_required
def home(request):
    """A person's home: their queues; for whoever the rules let run a workflow (admins) also what needs them
    now and each workflow's pipeline (the apps' hooks ask can(), so the lists are empty for everyone else)."""
    user = request.user
    context = {"panels": home_panels(user), "roles": sorted(user.role_names), "todos": todos(user),
               "pipelines": pipelines(user)}
    return render(request, "accounts/home.html", context)


def demo_logins() -> list[dict]:
    """The demo accounts a visitor may log in with: only in demo mode (./scripts/demo sets SORI_DEMO_PROVIDER,
    as the demo banner reads it), and only those seed_demo created, so a real deployment never lists any."""
    if not settings.SORI_DEMO_PROVIDER:
        return []
    existing = set(User.objects.filter(username__in=[name for name, _ in DEMO_LOGINS]).values_list("username", flat=True))
    return [{"username": name, "password": demo_password(name), "role": role}
            for name, role in DEMO_LOGINS if name in existing]


class LoginView(auth_views.LoginView):
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {"demo_logins": demo_logins()}


@require_POST
def choose_language(request):
    """The header's language switch, on every page and on the login page: saves a signed-in person's choice,
    then lets Django's set_language set the language cookie and go back to the page (a safe `next` only)."""
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        user_set_language(request.user, language)
    return set_language(request)
