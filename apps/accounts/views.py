from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from apps.accounts.navigation import home_panels, pipelines, todos


@login_required
def home(request):
    """A person's home: their queues; for an admin also what needs them now and each workflow's pipeline."""
    user = request.user
    context = {"panels": home_panels(user), "roles": sorted(user.role_names)}
    if user.is_sori_admin:
        context |= {"todos": todos(user), "pipelines": pipelines(user)}
    return render(request, "accounts/home.html", context)
