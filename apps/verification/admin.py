from django.contrib import admin

from apps.verification.models import (
    BaselineSession,
    ItemImport,
    Review,
    ReviewEvent,
    ScoringRun,
    VerificationItem,
    VerificationProject,
)


@admin.register(VerificationProject)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "settle_on_first_rejection", "created_at"]
    readonly_fields = ["pool"]


@admin.register(VerificationItem)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "project", "task", "format", "language", "status"]
    list_filter = ["project", "task", "status", "language"]
    search_fields = ["external_id", "question"]
    readonly_fields = [f.name for f in VerificationItem._meta.fields]


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "decision", "changes", "updated_at"]
    list_filter = ["decision"]
    readonly_fields = [f.name for f in Review._meta.fields]


@admin.register(ReviewEvent)
class ReviewEventAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "kind", "decision", "at"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.register(ItemImport)
admin.site.register(BaselineSession)
admin.site.register(ScoringRun)
