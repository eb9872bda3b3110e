"""{% live_region "id" %}: the attributes that make an element of a page fetch itself again when a job shown
on the page finishes, so a stage's report and cost follow its progress bar without a reload.

The progress bar (jobs/_progress.html) raises the job-finished event once, when its poll first finds the job
finished (apps.jobs.views). Each live region then asks for its page again and swaps in only its own element
(found by id), so what someone is typing in a form elsewhere on the page is kept. The region passes none of
its attributes down (hx-disinherit), or a progress bar inside it would select the region from its own poll's
answer and vanish. Plain htmx attributes: no
script in the page, nothing the Content-Security-Policy refuses."""

from django import template
from django.utils.html import format_html

from apps.jobs.views import JOB_FINISHED_EVENT

register = template.Library()


@register.simple_tag(takes_context=True)
def live_region(context, region_id: str) -> str:
    url = context["request"].get_full_path()
    return format_html(
        'id="{}" data-live-region hx-get="{}" hx-trigger="{} from:body" hx-select="#{}" hx-swap="outerHTML" hx-disinherit="*"',
        region_id, url, JOB_FINISHED_EVENT, region_id,
    )
