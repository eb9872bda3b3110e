"""What the Django admins of several apps share."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """A model the admin may look at but never add, change or delete: its rows are records written by the
    app's services (which keep its invariants), so an edit here would bypass them."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
