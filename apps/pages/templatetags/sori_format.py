"""Display filters shared by every page: a percentage or score always carries its unit, a code shows its
label, and an interval on a bounded scale stays inside the scale (and says when it was clipped).

Every statistic has an empty state (nothing counted yet: the page says what to do next) and a thin-data state
(a share over fewer than MIN_N_FOR_RATE items is shown as "k of n", a mean over fewer than MIN_N_FOR_CI says
its n): `rate`, `mean`, `cost` and `empty_state` render them alike on every dashboard."""

from datetime import UTC, datetime

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.html import format_html

register = template.Library()

# Below this many ratings a confidence interval says "n too small" instead of a range.
MIN_N_FOR_CI = 3


@register.filter
def when(value) -> str:
    """A time as people read it, in the site's time zone and naming it, in the active language's format
    (config/formats): 2026-01-05 18:00 KST, 2026년 1월 5일 18:00 KST. Takes a datetime or the ISO text a
    provenance file stores; anything else is shown as it is."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if not isinstance(value, datetime):
        return "" if value is None else str(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    local = timezone.localtime(value)
    return f"{formats.date_format(local, 'SHORT_DATETIME_FORMAT')} {local.strftime('%Z')}"


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
        return str(known)
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


# Below this many a share is shown as "k of n" and says the base is too small for a percentage: one item
# moves it by more than ten points.
MIN_N_FOR_RATE = 10


def _stat(text, note="", *, state: str):
    """One statistic, marked with its state (data-state: empty, thin or ok) so pages and tests can tell."""
    if state == "empty":
        return format_html('<span class="stat empty" data-state="empty">{}</span>', text)
    if note:
        return format_html('<span class="stat" data-state="{}">{} <span class="muted">({})</span></span>', state, text, note)
    return format_html('<span class="stat" data-state="{}">{}</span>', state, text)


@register.simple_tag
def empty_state(text="none yet"):
    """A statistic with nothing to count yet, marked like the empty state of `rate` and `mean`."""
    return _stat(text, state="empty")


@register.simple_tag
def rate(part, whole, *, empty="none yet", digits: int = 1):
    """part of whole as a share: "81.3 % (130 of 160)"; below MIN_N_FOR_RATE "2 of 3 (n too small for a
    percentage)"; with nothing counted (whole 0 or None) the `empty` text."""
    if not whole:
        return _stat(empty, state="empty")
    part, whole = int(part or 0), int(whole)
    if whole < MIN_N_FOR_RATE:
        return _stat(f"{part} of {whole}", "n too small for a percentage", state="thin")
    return _stat(pct(100 * part / whole, digits), f"{part} of {whole}", state="ok")


@register.simple_tag
def mean(value, n, *, unit: str = "", empty="none yet", digits: int = 0):
    """A mean with its unit; the n it rests on beside it below MIN_N_FOR_CI; the `empty` text without data."""
    if not n or value is None:
        return _stat(empty, state="empty")
    text = f"{float(value):,.{int(digits)}f}" + (f"\u00a0{unit}" if unit else "")
    if int(n) < MIN_N_FOR_CI:
        return _stat(text, f"n = {int(n)}", state="thin")
    return _stat(text, state="ok")


@register.filter
def usd(value, digits: int = 4) -> str:
    """0.01234 -> "$0.0123"; None -> "—"."""
    if value is None or value == "":
        return "—"
    return f"${float(value):,.{int(digits)}f}"


@register.simple_tag
def cost(value, calls, *, empty="no agent calls yet"):
    """What agent calls cost, in USD, with the number of calls; the `empty` text before the first call."""
    if not calls:
        return _stat(empty, state="empty")
    return _stat(usd(value), f"{int(calls)} call{'' if int(calls) == 1 else 's'}", state="ok")


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
# The page a job was started from, by kind: (label, URL name, the job param holding its id).
_STARTED_FROM = {
    "authoring.generate": ("the question set", "authoring:dashboard", "set"),
    "authoring.agent_questions": ("the question set", "authoring:dashboard", "set"),
}


@register.simple_tag
def started_from(job) -> dict | None:
    """{"label", "url"} of the page the job works for (a question set's dashboard), or None."""
    known = _STARTED_FROM.get(job.kind)
    if not known or (job.params or {}).get(known[2]) is None:
        return None
    label, name, param = known
    return {"label": label, "url": reverse(name, args=[job.params[param]])}


@register.simple_tag
def job_result_rows(job) -> list[dict]:
    """A job's result as a person reads it: one row per value (label, text, optional link), lists and
    nested counts spelled out, never a Python dict."""
    rows = []
    for key, value in (job.result or {}).items():
        if key in ("errors", "attention"):
            continue  # shown in full on their own (the errors; the count needing attention and its link)
        url = None
        name = _RESULT_LINKS.get((job.kind, key))
        if name:
            try:
                url = reverse(name, args=[value])
            except NoReverseMatch:
                url = None
        rows.append({"label": label(key), "text": _readable(value), "url": url})
    return rows


@register.filter
def readable(value) -> str:
    """A stored value as people read it, never a Python repr: a list as "a, b, c", a mapping as "key: value",
    true/false as yes/no, nothing as "—"."""
    return _readable(value)


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
