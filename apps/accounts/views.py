from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from apps.accounts.navigation import home_panels


@login_required
def home(request):
    user = request.user
    panels = home_panels(user)
    return render(request, "accounts/home.html", {"panels": panels, "roles": sorted(user.role_names)})
