"""Read-only admin views of the assignment engine. Every change goes through apps.queues.services, which
keeps the counters and the capacity invariant right; the admin only looks."""

from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin
from apps.queues import selectors
from apps.queues.models import Assignment, PoolExclusion, WorkItem, WorkPool


class ExclusionInline(admin.TabularInline):
    model = PoolExclusion
    fk_name = "pool"
    fields = ("worker", "excluded_by", "excluded_at", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(WorkPool)
class WorkPoolAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "required_per_item", "lease_seconds", "created_at")
    list_filter = ("kind",)
    search_fields = ("name",)
    fields = ("name", "kind", "required_per_item", "lease_seconds", "created_at", "progress")
    readonly_fields = fields
    inlines = [ExclusionInline]

    @admin.display(description="progress")
    def progress(self, pool):
        p = selectors.pool_progress(pool)
        by = ", ".join(f"{n} submitted: {count}" for n, count in p["by_submitted"].items())
        return (
            f"{p['complete']} of {p['items']} items complete ({p['gold']} gold, {p['closed']} closed); "
            f"{p['submissions']} submissions, {p['live_leases']} live leases; {by}"
        )


@admin.register(WorkItem)
class WorkItemAdmin(ReadOnlyAdmin):
    list_display = ("id", "pool", "capacity", "submitted_count", "complete", "closed", "created_at")
    list_filter = ("closed", "complete", "pool__kind")
    list_select_related = ("pool",)
    search_fields = ("id",)
    readonly_fields = [f.name for f in WorkItem._meta.fields]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ("id", "pool", "item_id", "worker", "status", "leased_at", "expires_at", "submitted_at")
    list_filter = ("status", "pool__kind")
    list_select_related = ("pool", "worker")
    search_fields = ("worker__username", "item__id")
    readonly_fields = [f.name for f in Assignment._meta.fields]
    raw_id_fields = ("item",)


@admin.register(PoolExclusion)
class PoolExclusionAdmin(ReadOnlyAdmin):
    list_display = ("pool", "worker", "excluded_by", "excluded_at", "reason")
    list_select_related = ("pool", "worker", "excluded_by")
    readonly_fields = [f.name for f in PoolExclusion._meta.fields]
