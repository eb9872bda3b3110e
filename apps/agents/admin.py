from django.contrib import admin

from apps.agents.models import AgentCall, CachedResponse, RoleAssignment


@admin.register(RoleAssignment)
class RoleAssignmentAdmin(admin.ModelAdmin):
    list_display = ["role", "provider", "model", "updated_by", "updated_at"]
    readonly_fields = ["updated_by", "updated_at"]

    def save_model(self, request, obj, form, change):
        obj.updated_by = request.user  # who chose this model is part of the audit trail
        super().save_model(request, obj, form, change)


@admin.register(AgentCall)
class AgentCallAdmin(admin.ModelAdmin):
    list_display = ["created_at", "role", "provider", "model", "prompt_name", "prompt_version", "status",
                    "input_tokens", "output_tokens", "cost_usd", "latency_ms", "job"]
    list_filter = ["status", "role", "provider", "model", "prompt_name"]
    search_fields = ["input_hash", "prompt_name", "model", "error"]
    date_hierarchy = "created_at"
    list_select_related = ["job"]
    readonly_fields = [f.name for f in AgentCall._meta.fields]

    def has_add_permission(self, request):
        return False  # the log is written by call_agent only

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(CachedResponse)
class CachedResponseAdmin(admin.ModelAdmin):
    list_display = ["input_hash", "prompt_name", "prompt_version", "provider", "model", "hits", "created_at"]
    list_filter = ["prompt_name", "provider", "model"]
    search_fields = ["input_hash"]
    readonly_fields = [f.name for f in CachedResponse._meta.fields]

    def has_add_permission(self, request):
        return False
