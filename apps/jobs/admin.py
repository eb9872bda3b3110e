from django.contrib import admin

from apps.jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "kind", "status", "done", "total", "attempts", "worker", "lease_expires_at", "created_by", "created_at", "finished_at")
    list_filter = ("status", "kind")
    readonly_fields = [f.name for f in Job._meta.fields]
