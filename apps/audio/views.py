from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from apps.accounts.decorators import login_or_token_required
from apps.accounts.permissions import require
from apps.audio import playback
from apps.audio.models import AudioAsset
from apps.audio.ranges import ranged_file_response


@login_or_token_required
@require_GET
def serve_audio(request, public_id):
    """The only way audio leaves the server: permission-checked, seekable, and under an opaque id. A page's
    session or the API's token (the audio_url an API answer gives)."""
    asset = get_object_or_404(AudioAsset, public_id=public_id)
    require(request.user, "audio.listen", asset)
    playback.note_served(asset, request.user)
    fh = asset.file.open("rb")
    # Named for the format its content was checked to be: the stored name keeps the imported file's
    # extension, so a WAV imported as page.html would be served inline as <sha256>.html.
    extension = asset.format if asset.content_type != "application/octet-stream" else "bin"
    return ranged_file_response(
        fh, content_type=asset.content_type, range_header=request.headers.get("Range"), etag=asset.sha256,
        filename=f"{asset.sha256}.{extension}",
    )
