from apps.accounts.navigation import nav_links


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_links": []}
    return {"nav_links": nav_links(user)}
