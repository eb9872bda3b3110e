from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import Pseudonym, User


@admin.register(User)
class SoriUserAdmin(UserAdmin):
    list_display = ("username", "display_name", "roles", "is_active", "last_login")
    list_filter = ("groups", "is_active", "is_staff")
    fieldsets = UserAdmin.fieldsets + (("Sori", {"fields": ("display_name",)}),)
    add_fieldsets = UserAdmin.add_fieldsets + (("Roles", {"fields": ("groups",)}),)

    @admin.display(description="roles")
    def roles(self, user):
        return ", ".join(sorted(user.role_names))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Django admin access follows the admin role, whichever way it was granted.
        user = form.instance
        is_staff = user.is_superuser or user.groups.filter(name="admin").exists()
        if user.is_staff != is_staff:
            type(user).objects.filter(pk=user.pk).update(is_staff=is_staff)


@admin.register(Pseudonym)
class PseudonymAdmin(admin.ModelAdmin):
    """Who is behind a pseudonym, for admins; never edited (released files name people by these values)."""

    list_display = ["value", "scope", "user"]
    list_filter = ["scope"]
    search_fields = ["value", "user__username"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
