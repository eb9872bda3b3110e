"""Display filters shared by every page: a percentage or score always carries its unit, a code shows its
label, and an interval on a bounded scale stays inside the scale (and says when it was clipped)."""

from django import template
from django.utils.html import format_html

register = template.Library()

# Below this many ratings a confidence interval says "n too small" instead of a range.
MIN_N_FOR_CI = 3


@register.filter
def pct(value, digits: int = 1):
    """81.264 -> "81.3 %"; None -> "—"."""
    if value is None or value == "":
        return "—"
    return f"{float(value):.{int(digits)}f} %"


@register.filter
def label(code) -> str:
    """A machine code as people read it: a known label when one is registered, else "wrong_answer" ->
    "Wrong answer"."""
    if code is None:
        return ""
    text = str(code)
    known = _known_labels().get(text)
    if known:
        return known
    text = text.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


@register.filter
def labels(codes) -> str:
    """A list of codes as a comma-separated list of labels."""
    return ", ".join(label(c) for c in codes or [])


def _known_labels() -> dict[str, str]:
    # Imported here, not at module level: template tags load before every app registry is ready.
    from apps.verification.models import Reason

    return dict(Reason.choices)


@register.simple_tag
def mos_ci(low, high, n, *, lo: float = 1.0, hi: float = 5.0, digits: int = 2):
    """A 95 % interval of a mean on the lo..hi scale, clipped to it; "n too small" below MIN_N_FOR_CI."""
    if n is None or int(n) < MIN_N_FOR_CI or low is None or high is None:
        return format_html('<span class="muted" title="fewer than {} ratings">n too small</span>', MIN_N_FOR_CI)
    clipped_low, clipped_high = max(float(low), lo), min(float(high), hi)
    text = f"{clipped_low:.{digits}f}\u00a0–\u00a0{clipped_high:.{digits}f}"
    if clipped_low != float(low) or clipped_high != float(high):
        scale = f"{lo:g}–{hi:g}"
        return format_html('{} <span class="muted" title="the interval was clipped to the scale">(clipped to {})</span>', text, scale)
    return text


# Where the thing a job made can be seen: (job kind, result key) -> URL name taking that id.
_RESULT_LINKS = {
    ("listening.import", "test"): "listening:dashboard",
}
# Where to start again after a job refused its input (validation): fix the file and upload it again.
_UPLOAD_AGAIN = {
    "listening.import": "listening:import",
}


@register.simple_tag
def job_result_rows(job) -> list[dict]:
    """A job's result as a person reads it: one row per value (label, text, optional link), lists and
    nested counts spelled out, never a Python dict."""
    from django.urls import NoReverseMatch, reverse

    rows = []
    for key, value in (job.result or {}).items():
        if key == "errors":
            continue  # shown in full on their own
        url = None
        name = _RESULT_LINKS.get((job.kind, key))
        if name:
            try:
                url = reverse(name, args=[value])
            except NoReverseMatch:
                url = None
        rows.append({"label": label(key), "text": _readable(value), "url": url})
    return rows


def _readable(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{label(k)}: {_readable(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list | tuple):
        return ", ".join(_readable(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == "":
        return "—"
    return str(value)


@register.filter
def upload_again_url(job) -> str:
    """The page to fix and upload again after the job refused its input, or ""."""
    from django.urls import reverse

    name = _UPLOAD_AGAIN.get(job.kind)
    return reverse(name) if name and (job.result or {}).get("errors") else ""


@register.filter
def near_target(extra_tags) -> str:
    """A message added with extra_tags="near:<element id or field name>" is shown next to that element
    (static/js/sori.js moves it there), not at the top of a long page."""
    for tag in (extra_tags or "").split():
        if tag.startswith("near:"):
            return tag.removeprefix("near:")
    return ""
