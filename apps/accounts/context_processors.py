from apps.accounts.navigation import nav_groups


def navigation(request):
    """`nav_groups` for the top menu, and `nav_current`: the URL of the menu entry the page belongs to (the
    longest one its path starts with) and `nav_current_group`, its group, which the template marks as current."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_groups": [], "nav_current": "", "nav_current_group": ""}
    groups = nav_groups(user)
    matches = [(link.url, group.key) for group in groups for link in group.links if request.path.startswith(link.url)]
    current, group = max(matches, key=lambda match: len(match[0]), default=("", ""))
    return {"nav_groups": groups, "nav_current": current, "nav_current_group": group}
