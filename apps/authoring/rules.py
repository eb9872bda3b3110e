"""Who may do what in KMMAU authoring (asked through apps.accounts.permissions.can). Admins may do all."""

from apps.accounts.permissions import role_rule, rule
from apps.accounts.roles import Role
from apps.audio.rules import grants_audio_access
from apps.authoring.models import Clip

role_rule("authoring.manage")  # corpora, question sets, generation, export: admins only
role_rule("authoring.work", Role.ANNOTATOR)


@rule("authoring.read_question")
def _author_reads_own_question(user, question) -> bool:
    """A question with both answers (an escalation) is shown to its author; the blind answerer sees it only
    as a question to answer."""
    return question is not None and question.author_id == user.pk


@grants_audio_access
def _annotator_hears_corpus_clips(user, asset) -> bool:
    """Annotators review, author and answer questions on any clip of a corpus that a question set uses."""
    return user.has_role(Role.ANNOTATOR) and Clip.objects.filter(audio=asset, corpus__question_sets__isnull=False).exists()
