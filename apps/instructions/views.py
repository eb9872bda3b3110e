"""The two halves of an admin page's instructions form, shared by the apps that own instructions: the context
the form partial (instructions/_form.html) renders, and saving what it posts (the app's view checks who may)."""

from django.contrib import messages
from django.utils.translation import gettext as _

from apps.core.errors import ApplicationError
from apps.instructions.forms import InstructionsForm

FORM_IDS = "instructions-%s"  # the admin pages have other "text" fields: these ids stay unique


def form_context(version, url: str) -> dict:
    return {"instructions": version, "instructions_url": url,
            "instructions_form": InstructionsForm(auto_id=FORM_IDS, initial={"text_ko": version.text_ko, "text_en": version.text_en})}


def save_posted(request, revise) -> None:
    """Validate the posted form and call `revise(text_ko=..., text_en=..., acting_user=...)`; say the outcome."""
    form = InstructionsForm(request.POST, auto_id=FORM_IDS)
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return
    try:
        version = revise(acting_user=request.user, **form.cleaned_data)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return
    messages.success(request, _("Instructions saved: version %(number)s is in force.") % {"number": version.number})
