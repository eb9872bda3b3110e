from django.contrib import admin

from apps.authoring.models import BlindAnswer, Clip, Corpus, Question, QuestionSet, Review, ScoreRun


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "format", "license", "imported_at"]
    readonly_fields = ["format", "source", "source_sha256", "imported_by", "imported_at"]


@admin.register(Clip)
class ClipAdmin(admin.ModelAdmin):
    list_display = ["utterance_id", "corpus", "speaker_id", "gender", "age_group", "num_speakers"]
    list_filter = ["corpus", "gender", "age_group"]
    search_fields = ["utterance_id", "transcript"]
    readonly_fields = [f.name for f in Clip._meta.fields]


@admin.register(QuestionSet)
class QuestionSetAdmin(admin.ModelAdmin):
    list_display = ["name", "reviewers_per_question", "license", "created_at"]
    readonly_fields = ["review_pool", "answer_pool"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["id", "question_set", "capability", "method", "status"]
    list_filter = ["question_set", "capability", "method", "status"]
    search_fields = ["text"]
    readonly_fields = ["work_item", "provenance", "original", "version", "agent_calls"]


admin.site.register(Review)
admin.site.register(BlindAnswer)
admin.site.register(ScoreRun)
