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
