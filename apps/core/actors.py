"""Who a write records as having acted."""


def actor(acting_user):
    """The user to record as the one who acted (created_by, uploaded_by...), or None: a command or a job acts
    for nobody, and an anonymous visitor (AnonymousUser, whose pk is None) is no row to point at."""
    return acting_user if acting_user is not None and acting_user.pk else None
