from django.contrib import admin

from apps.listening.models import Clip, ListeningTest, Prediction, Predictor, Rating


@admin.register(ListeningTest)
class ListeningTestAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(Clip)
class ClipAdmin(admin.ModelAdmin):
    list_display = ["clip_id", "test", "source_type", "style", "category", "system", "gold_min", "gold_max", "split"]
    list_filter = ["test", "source_type", "style", "split"]
    search_fields = ["clip_id", "text", "speaker"]
    raw_id_fields = ["work_item", "asset"]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["clip", "listener", "score", "rated_at"]
    list_filter = ["clip__test"]
    raw_id_fields = ["clip", "listener"]

    def has_change_permission(self, request, obj=None):
        return False  # ratings are records; exclusion, not edits, takes a listener out


@admin.register(Predictor)
class PredictorAdmin(admin.ModelAdmin):
    list_display = ["name", "test", "uploaded_at"]


admin.site.register(Prediction)
