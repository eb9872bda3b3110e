"""Reads of KMMAU construction: accepted questions (the export and the releases app use them), what a
reviewer or blind answerer sees, and the set dashboard."""

import random
from collections import Counter, defaultdict

from django.db.models import Count, Q, QuerySet, Sum

from apps.accounts.pseudonyms import RELEASES, pseudonyms_for
from apps.agents.models import AgentCall
from apps.audio.models import AudioPlayback
from apps.authoring import balance
from apps.authoring.capabilities import SPECS, Capability, Method
from apps.authoring.models import (
    BlindAnswer,
    Clip,
    Decision,
    Question,
    QuestionSet,
    QuestionStatus,
    RejectReason,
    Review,
)
from apps.queues.selectors import remaining_for_worker


def accepted_questions(question_set: QuestionSet) -> QuerySet:
    """Accepted questions of the set with their clip (segment fields on the question) and the clip's corpus
    and licence, in id order. A stable name: apps.releases packages these."""
    return (Question.objects.accepted().filter(question_set=question_set)
            .select_related("clip", "clip__corpus", "clip__audio").order_by("id"))


def audio_url(question: Question) -> str:
    return question.clip.audio.get_absolute_url()


def question_for_reviewer(question: Question) -> dict:
    """What a reviewer sees: the audio (and segment), the question with its answer and evidence."""
    return {
        "id": question.pk, "set": question.question_set_id, "capability": question.capability,
        "method": question.method, "version": question.version, "text": question.text,
        "options": question.options, "correct_index": question.correct_index, "evidence": question.evidence,
        "audio_url": audio_url(question), "clip": question.clip_id,
        "start_seconds": question.start_seconds, "end_seconds": question.end_seconds,
        "status": question.status, "transcript": question.clip.clean_transcript,
    }


def review_progress(question_set: QuestionSet, user, *, holding: bool) -> dict:
    """The reviewer's "n of m": the questions of the set they reviewed, and how many they may still be given
    (the one they hold, when `holding`, plus those open to them), as the verification page counts."""
    done = Review.objects.filter(question__question_set=question_set, reviewer=user).count()
    total = done + int(holding) + remaining_for_worker(question_set.review_pool, user)
    return {"done": done, "total": total, "number": done + 1}


def has_played(clip_id: int, user) -> bool:
    """The person played this clip to its end (the playback gate let it through) at least once."""
    return AudioPlayback.objects.filter(asset__authoring_clips=clip_id, user=user).exists()


def blind_options(question: Question) -> list[str]:
    """The options in an order of their own (seeded by the question), so the author's order gives nothing away."""
    options = list(question.options)
    random.Random(f"blind:{question.pk}").shuffle(options)
    return options


def question_for_answerer(question: Question) -> dict:
    """What a blind answerer sees: audio, question and options; never the author's answer or transcript."""
    return {
        "id": question.pk, "set": question.question_set_id, "capability": question.capability,
        "text": question.text, "options": blind_options(question), "audio_url": audio_url(question),
        "clip": question.clip_id, "start_seconds": question.start_seconds, "end_seconds": question.end_seconds,
    }


def escalation_views(questions) -> list[dict]:
    """For the author and admins: both answers side by side. The blind answerer appears under their
    release pseudonym (the name KMMAU releases give them), never their username: the author is not to know
    who answered, so the second answer stays blind. The answers and names of all the questions in two
    queries, however many there are."""
    questions = list(questions)
    answers = {a.question_id: a for a in BlindAnswer.objects.filter(question__in=questions).order_by("-pk")}
    names = pseudonyms_for({a.answerer_id for a in answers.values()}, RELEASES)
    return [{
        **question_for_reviewer(question),
        "author": question.author.username if question.author else None,
        "author_answer": question.answer,
        "blind_answer": question.options[answer.chosen_index] if answer else None,
        "answerer": names[answer.answerer_id] if answer else None,
    } for question in questions for answer in [answers.get(question.pk)]]


def escalation_view(question: Question) -> dict:
    return escalation_views([question])[0]


def escalations_for(user) -> QuerySet:
    qs = Question.objects.filter(status=QuestionStatus.ESCALATED).select_related("clip__audio", "author")
    return qs if user.is_sori_admin else qs.filter(author=user)


def set_summary(question_set: QuestionSet) -> dict:
    """The dashboard: per capability and method made / in review / accepted / rejected against the target,
    rejection reasons, reviewer agreement, author-answerer match rate, agent cost, and the answer letters of
    the export."""
    questions = Question.objects.filter(question_set=question_set)
    counts = defaultdict(Counter)
    for capability, method, status, n in questions.values_list("capability", "method", "status").annotate(n=Count("id")):
        counts[(capability, method)][status] += n
    rows = []
    for capability, spec in SPECS.items():
        c = counts[(str(capability), str(spec.method))]
        rows.append({
            "capability": str(capability), "label": Capability(capability).label, "category": spec.category,
            "method": str(spec.method), "target": question_set.targets.get(str(capability), 0),
            "made": sum(c.values()), "in_review": c[QuestionStatus.IN_REVIEW] + c[QuestionStatus.AWAITING_ANSWER],
            "needs_attention": c[QuestionStatus.NEEDS_ATTENTION], "escalated": c[QuestionStatus.ESCALATED],
            "accepted": c[QuestionStatus.ACCEPTED], "rejected": c[QuestionStatus.REJECTED],
        })
    reviews = Review.objects.filter(question__question_set=question_set)
    reasons = Counter()
    for listed in reviews.filter(decision=Decision.REJECT).values_list("reasons", flat=True):
        reasons.update(listed)
    # Agreement: of the settled reviewed questions, the share whose reviewers all decided alike (approve and
    # edit both keep the question; reject does not).
    settled = questions.filter(method=Method.AGENT, status__in=[QuestionStatus.ACCEPTED, QuestionStatus.REJECTED])
    per_question = settled.annotate(
        rejects=Count("reviews", filter=Q(reviews__decision=Decision.REJECT)), total=Count("reviews"),
    ).values_list("rejects", "total")
    reviewed = [(r, t) for r, t in per_question if t >= 2]
    agreeing = sum(1 for r, t in reviewed if r in (0, t))
    answers = BlindAnswer.objects.filter(question__question_set=question_set)
    answered = answers.count()
    matched = answers.filter(matches=True).count()
    calls = AgentCall.objects.filter(authoring_questions__question_set=question_set).distinct()
    cost = calls.aggregate(total=Sum("cost_usd"))["total"] or 0
    accepted = list(Question.objects.accepted().filter(question_set=question_set)
                    .only("id", "capability", "options", "correct_index"))
    arranged = balance.arrange(accepted, seed=question_set.seed)
    return {
        "set": {"id": question_set.pk, "name": question_set.name, "reviewers_per_question": question_set.reviewers_per_question,
                "seed": question_set.seed, "license": question_set.license,
                "corpora": [{"name": c.name, "license": c.license} for c in question_set.corpora.all()]},
        "capabilities": rows,
        "totals": {k: sum(r[k] for r in rows) for k in ("target", "made", "in_review", "accepted", "rejected",
                                                          "needs_attention", "escalated")},
        "rejection_reasons": {RejectReason(k).label: v for k, v in reasons.most_common()},
        "reviewer_agreement": {"questions": len(reviewed), "agreeing": agreeing,
                               "rate": round(agreeing / len(reviewed), 3) if reviewed else None},
        "blind_match": {"answered": answered, "matched": matched,
                        "rate": round(matched / answered, 3) if answered else None},
        "agent_cost_usd": str(cost), "agent_calls": calls.count(),
        "answer_letters": balance.letter_distribution(arranged, {q.pk: q.capability for q in accepted}),
    }


def agent_questions_needing_attention(question_set: QuestionSet) -> list[dict]:
    """The agent's questions of the set that need attention, grouped by corpus and capability (each group can
    be written again): {"corpus", "capability", "questions"}."""
    groups: dict[tuple, dict] = {}
    rows = (question_set.questions.filter(method=Method.AGENT, status=QuestionStatus.NEEDS_ATTENTION)
            .select_related("clip__corpus").order_by("clip__corpus_id", "capability", "pk"))
    for question in rows:
        key = (question.clip.corpus_id, question.capability)
        group = groups.setdefault(key, {"corpus": question.clip.corpus, "capability": question.capability,
                                        "label": question.get_capability_display(), "questions": []})
        group["questions"].append(question)
    return list(groups.values())


def pipeline_counts() -> dict:
    """KMMAU for the admin's home page, in two queries whatever the number of sets: corpus clips; questions by
    method (rule-based from metadata or transcripts, agent, manual) and by status."""
    counts = {"clips": Clip.objects.count()}
    rule = [Method.METADATA, Method.TRANSCRIPT]
    counts |= Question.objects.aggregate(
        questions=Count("id"), rule=Count("id", filter=Q(method__in=rule)),
        agent=Count("id", filter=Q(method=Method.AGENT)), manual=Count("id", filter=Q(method=Method.MANUAL)),
        in_review=Count("id", filter=Q(status=QuestionStatus.IN_REVIEW)),
        awaiting_answer=Count("id", filter=Q(status=QuestionStatus.AWAITING_ANSWER)),
        accepted=Count("id", filter=Q(status=QuestionStatus.ACCEPTED)),
        rejected=Count("id", filter=Q(status=QuestionStatus.REJECTED)),
    )
    return counts


def waiting_for_admin() -> dict:
    """Questions waiting for an admin, in one query: `escalated` (the blind answer differs from the author's)
    and `attention` (generation failed or left them incomplete)."""
    return Question.objects.aggregate(escalated=Count("id", filter=Q(status=QuestionStatus.ESCALATED)),
                                      attention=Count("id", filter=Q(status=QuestionStatus.NEEDS_ATTENTION)))
