from django.contrib import admin

from apps.transfer.models import Correction, CorrectionDecision, GroundTruthReview, ReviewRun


@admin.register(ReviewRun)
class ReviewRunAdmin(admin.ModelAdmin):
    list_display = ["benchmark", "subset", "limit", "on_unresolved", "reviewer_model", "meta_reviewer_model", "job", "created_at"]


@admin.register(GroundTruthReview)
class GroundTruthReviewAdmin(admin.ModelAdmin):
    list_display = ["sample", "outcome", "run", "created_at"]
    list_filter = ["outcome"]
    raw_id_fields = ["sample", "reviewer_call"]


class DecisionInline(admin.TabularInline):
    model = CorrectionDecision
    extra = 0
    can_delete = False
    readonly_fields = ["decided_by", "decided_as", "from_status", "to_status", "note", "created_at"]

    def has_add_permission(self, request, obj=None):
        return False  # decisions are made on the corrections page, which records who made them


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    list_display = ["sample", "kind", "status", "meta_verdict", "updated_at"]
    list_filter = ["status", "kind", "meta_verdict", "sample__subset"]
    raw_id_fields = ["sample", "review", "meta_call"]
    readonly_fields = ["status", "meta_verdict"]
    inlines = [DecisionInline]
