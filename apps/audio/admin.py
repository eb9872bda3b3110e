import tempfile
from pathlib import Path

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext

from apps.audio import services
from apps.audio.info import AudioRejected
from apps.audio.inspection import inspect_audio
from apps.audio.models import AudioAsset
from apps.audio.store import atomic_import


class AudioUploadForm(forms.ModelForm):
    upload = forms.FileField(help_text="WAV, MP3, FLAC, OGG, M4A or WebM; validated with ffmpeg")
    convert = forms.BooleanField(required=False, label="Also store a 16 kHz mono WAV copy")

    class Meta:
        model = AudioAsset
        fields: list[str] = []

    def clean_upload(self):
        upload = self.cleaned_data["upload"]
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


@admin.register(AudioAsset)
class AudioAssetAdmin(admin.ModelAdmin):
    upload_limit = "audio"  # apps.core.uploads: the add form takes one audio file
    list_display = ("original_name", "format", "duration_seconds", "sample_rate", "channels", "size_bytes", "created_at")
    search_fields = ("original_name", "sha256")
    readonly_fields = [f.name for f in AudioAsset._meta.fields] + ["player"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = AudioUploadForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj else []

    def get_fields(self, request, obj=None):
        return ["upload", "convert"] if obj is None else self.readonly_fields

    @admin.display(description="listen")
    def player(self, asset):
        return format_html('<audio controls preload="none" src="{}"></audio>', asset.get_absolute_url())

    def save_model(self, request, obj, form, change):
        if change:
            return
        with atomic_import():
            asset, created = services.import_uploaded_file(form.cleaned_data["upload"])
            if form.cleaned_data.get("convert"):
                services.convert_to_16k_mono(asset)
        if not created:
            messages.info(request, gettext(
                "%(asset)s was already stored (same sha256); nothing new was added."
            ) % {"asset": asset})
        for field in AudioAsset._meta.concrete_fields:
            setattr(obj, field.attname, getattr(asset, field.attname))
        obj._state.adding = False
