import tempfile
from pathlib import Path

from django import forms
from django.contrib import admin
from django.utils.html import format_html

from apps.audio.info import AudioRejected
from apps.audio.inspection import inspect_audio
from apps.core import limits
from apps.speech import services
from apps.speech.models import ReferenceVoice, SpeechCall, SynthesisAttempt, SynthesisDecision, SynthesisRun


class ReferenceVoiceForm(forms.ModelForm):
    transcript = forms.CharField(widget=forms.Textarea, max_length=limits.TRANSCRIPT,
                                 help_text="exactly what the clip says (sent as ref_text)")
    clip_upload = forms.FileField(required=False, label="Clip",
                                  help_text="a Korean recording (WAV, FLAC, MP3...), validated with ffmpeg")

    class Meta:
        model = ReferenceVoice
        fields = ["name", "gender", "transcript", "vendor_voice", "active"]

    def clean_clip_upload(self):
        upload = self.cleaned_data.get("clip_upload")
        if self.instance.pk is None and not upload:
            raise forms.ValidationError("upload the reference clip")
        if upload:
            with tempfile.NamedTemporaryFile(suffix=Path(upload.name).suffix) as tmp:
                for chunk in upload.chunks():
                    tmp.write(chunk)
                tmp.flush()
                try:
                    inspect_audio(Path(tmp.name), name=upload.name)
                except AudioRejected as exc:
                    raise forms.ValidationError(str(exc)) from None
            upload.seek(0)
        return upload


@admin.register(ReferenceVoice)
class ReferenceVoiceAdmin(admin.ModelAdmin):
    upload_limit = "audio"  # apps.core.uploads: the form takes the voice's clip
    form = ReferenceVoiceForm
    list_display = ("name", "gender", "active", "transcript", "created_at")
    list_filter = ("gender", "active")
    readonly_fields = ("player",)

    @admin.display(description="listen")
    def player(self, voice):
        return format_html('<audio controls preload="none" src="{}"></audio>', voice.clip.get_absolute_url()) if voice.pk else ""

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        data = form.cleaned_data
        voice = services.voice_create(acting_user=request.user, name=data["name"], gender=data["gender"],
                                      transcript=data["transcript"], clip=data["clip_upload"],
                                      vendor_voice=data.get("vendor_voice", ""))
        obj.pk, obj.clip_id, obj.created_at = voice.pk, voice.clip_id, voice.created_at
        obj._state.adding = False


@admin.register(SpeechCall)
class SpeechCallAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "backend", "model", "voice", "status", "http_attempts", "latency_ms",
                    "audio_seconds", "cost_usd")
    list_filter = ("kind", "status", "backend")
    search_fields = ("input_hash", "voice")

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SynthesisRun)
class SynthesisRunAdmin(admin.ModelAdmin):
    list_display = ("__str__", "tts_backend", "tts_model", "asr_model", "cer_threshold", "max_attempts", "created_at")

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SynthesisAttempt)
class SynthesisAttemptAdmin(admin.ModelAdmin):
    list_display = ("synthesis", "number", "voice", "cer", "wer", "passed")
    list_filter = ("passed",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SynthesisDecision)
class SynthesisDecisionAdmin(admin.ModelAdmin):
    list_display = ("synthesis", "action", "decided_by", "created_at")

    def has_change_permission(self, request, obj=None):
        return False
