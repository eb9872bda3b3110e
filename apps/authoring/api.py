"""The KMMAU API (issue 9; paths in urls.py):
POST sets/{id}/next-review/, POST questions/{id}/reviews/, POST clips/{id}/questions/ (manual authoring),
POST questions/{id}/answers/ (blind answer), GET sets/{id}/summary/ (admin); and the steps around them:
POST sets/{id}/next-answer/, POST clips/{id}/playback/, GET questions/{id}/ (the author or an admin).
A review's answer carries `next` (the question next-review would answer, or null): one call per question.
Refusals are apps.core.errors, answered by the shared exception handler."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can, fetch
from apps.audio import playback
from apps.authoring import selectors, services
from apps.authoring.capabilities import AGENT_CAPABILITIES, MANUAL_CAPABILITIES, SPECS
from apps.authoring.models import Clip, Decision, Question, QuestionSet, RejectReason
from apps.authoring.validation import OPTION_LENGTH
from apps.core import limits
from apps.core.api import StrictInput, error_responses

# ---- what the endpoints answer ------------------------------------------------------------------------------


class KmmauReviewerQuestionOut(serializers.Serializer):
    """A question as a reviewer sees it (selectors.question_for_reviewer)."""

    id = serializers.IntegerField()
    set = serializers.IntegerField()
    capability = serializers.CharField()
    method = serializers.CharField()
    version = serializers.IntegerField()
    text = serializers.CharField(allow_blank=True)
    options = serializers.ListField(child=serializers.CharField(allow_blank=True))
    correct_index = serializers.IntegerField(allow_null=True)
    evidence = serializers.CharField(allow_blank=True)
    audio_url = serializers.CharField()
    clip = serializers.IntegerField()
    start_seconds = serializers.FloatField(allow_null=True)
    end_seconds = serializers.FloatField(allow_null=True)
    status = serializers.CharField()
    transcript = serializers.CharField(allow_blank=True)


class KmmauAnswererQuestionOut(serializers.Serializer):
    """A question as a blind answerer sees it: no answer, no transcript (selectors.question_for_answerer)."""

    id = serializers.IntegerField()
    set = serializers.IntegerField()
    capability = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    options = serializers.ListField(child=serializers.CharField(allow_blank=True))
    audio_url = serializers.CharField()
    clip = serializers.IntegerField()
    start_seconds = serializers.FloatField(allow_null=True)
    end_seconds = serializers.FloatField(allow_null=True)


class KmmauEscalationOut(KmmauReviewerQuestionOut):
    """Both answers side by side; the blind answerer by pseudonym (selectors.escalation_view)."""

    author = serializers.CharField(allow_null=True)
    author_answer = serializers.CharField(allow_null=True, allow_blank=True)
    blind_answer = serializers.CharField(allow_null=True, allow_blank=True)
    answerer = serializers.CharField(allow_null=True)


class KmmauReviewDoneOut(serializers.Serializer):
    question = serializers.IntegerField()
    created = serializers.BooleanField()
    decision = serializers.CharField()
    status = serializers.CharField()
    version = serializers.IntegerField()
    next = KmmauReviewerQuestionOut(allow_null=True, help_text="Your next question to review in this set, leased to "
                                                               "you as next-review would answer it; null when none is left.")


class KmmauPlaybackOut(serializers.Serializer):
    clip = serializers.IntegerField()
    playback_complete = serializers.BooleanField()


class KmmauAuthoredOut(serializers.Serializer):
    question = serializers.IntegerField()
    status = serializers.CharField()
    created = serializers.BooleanField()


class KmmauAnsweredOut(serializers.Serializer):
    question = serializers.IntegerField()
    created = serializers.BooleanField()
    matches = serializers.BooleanField()
    status = serializers.CharField()


class KmmauCorpusOut(serializers.Serializer):
    name = serializers.CharField()
    license = serializers.CharField(allow_blank=True)


class KmmauSetOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    reviewers_per_question = serializers.IntegerField()
    seed = serializers.IntegerField()
    license = serializers.CharField(allow_blank=True)
    corpora = KmmauCorpusOut(many=True)


class KmmauCapabilityRowOut(serializers.Serializer):
    capability = serializers.CharField()
    label = serializers.CharField()
    category = serializers.CharField()
    method = serializers.CharField()
    target = serializers.IntegerField()
    made = serializers.IntegerField()
    in_review = serializers.IntegerField()
    needs_attention = serializers.IntegerField()
    escalated = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()


class KmmauRateOut(serializers.Serializer):
    rate = serializers.FloatField(allow_null=True)


class KmmauAgreementOut(KmmauRateOut):
    questions = serializers.IntegerField()
    agreeing = serializers.IntegerField()


class KmmauMatchOut(KmmauRateOut):
    answered = serializers.IntegerField()
    matched = serializers.IntegerField()


class KmmauSummaryOut(serializers.Serializer):
    """The set dashboard (selectors.set_summary)."""

    set = KmmauSetOut()
    capabilities = KmmauCapabilityRowOut(many=True)
    totals = serializers.DictField(child=serializers.IntegerField())
    rejection_reasons = serializers.DictField(child=serializers.IntegerField())
    reviewer_agreement = KmmauAgreementOut()
    blind_match = KmmauMatchOut()
    agent_cost_usd = serializers.CharField()
    agent_calls = serializers.IntegerField()
    answer_letters = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                           help_text="per capability, how many correct answers sit at A, B, C, D")


class NextReviewView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request=None, responses={
        200: OpenApiResponse(KmmauReviewerQuestionOut, description="Your current question (the one you hold) or "
                                                                   "the next one in your own order."),
        204: OpenApiResponse(description="Nothing left to review."),
        **error_responses(403, 404, s403="Not an annotator.", s404="No such question set."),
    })
    def post(self, request, pk):
        question_set = get_object_or_404(QuestionSet.objects.select_related("review_pool"), pk=pk)
        question = services.next_review(question_set=question_set, acting_user=request.user)
        if question is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(KmmauReviewerQuestionOut(selectors.question_for_reviewer(question)).data)


# Only agent-written questions are reviewed, so an edit has their option count (4: fact extraction, topic).
_REVIEWED_OPTIONS = sorted({SPECS[c].options for c in AGENT_CAPABILITIES})


class KmmauEditIn(StrictInput):
    text = serializers.CharField(max_length=limits.QUESTION)
    options = serializers.ListField(child=serializers.CharField(max_length=OPTION_LENGTH),
                                    min_length=_REVIEWED_OPTIONS[0], max_length=_REVIEWED_OPTIONS[-1])
    correct_index = serializers.IntegerField(min_value=0, max_value=_REVIEWED_OPTIONS[-1] - 1)


class KmmauReviewIn(StrictInput):
    decision = serializers.ChoiceField(choices=Decision.choices)
    reasons = serializers.ListField(child=serializers.ChoiceField(choices=RejectReason.choices), required=False, default=list)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=limits.COMMENT)
    edit = KmmauEditIn(required=False, default=None, allow_null=True)
    version = serializers.IntegerField(required=False, min_value=1, default=None)


def _review_schema() -> dict:
    """KmmauReviewIn with the rules services.submit_review checks on the body (a rejection needs reasons and
    only it takes them; an edit, and only an edit, carries the edited question), as one shape per decision.
    What no schema can say (two options with the same words to MMAU's matcher) stays a 400 naming options."""
    common = {
        "comment": {"type": "string", "maxLength": limits.COMMENT},
        "version": {"type": "integer", "minimum": 1, "description": "the question's version you saw (409 if edited since)"},
    }
    no_reasons = {"type": "array", "maxItems": 0, "items": {"type": "string", "enum": list(RejectReason.values)}}
    no_edit = {"enum": [None], "nullable": True}
    edit = {"type": "object", "required": ["text", "options", "correct_index"], "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": limits.QUESTION, "pattern": r"\S"},
        "options": {"type": "array", "minItems": _REVIEWED_OPTIONS[0], "maxItems": _REVIEWED_OPTIONS[-1],
                    "uniqueItems": True, "items": {"type": "string", "maxLength": OPTION_LENGTH, "pattern": r"\w"}},
        "correct_index": {"type": "integer", "minimum": 0, "maximum": _REVIEWED_OPTIONS[-1] - 1},
    }}
    return {"anyOf": [
        {"type": "object", "required": ["decision"], "properties": {
            "decision": {"type": "string", "enum": [Decision.APPROVE]}, "reasons": no_reasons, "edit": no_edit, **common}},
        {"type": "object", "required": ["decision", "reasons"], "properties": {
            "decision": {"type": "string", "enum": [Decision.REJECT]},
            "reasons": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": list(RejectReason.values)}},
            "edit": no_edit, **common}},
        {"type": "object", "required": ["decision", "edit"], "properties": {
            "decision": {"type": "string", "enum": [Decision.EDIT]}, "reasons": no_reasons, "edit": edit, **common}},
    ]}


class ReviewView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request={"application/json": _review_schema()}, responses={
        201: KmmauReviewDoneOut, 200: OpenApiResponse(KmmauReviewDoneOut, description="The same review again: the stored one."),
        **error_responses(400, 403, 404, 409,
                          s400="The body is malformed, or the review breaks a rule: a rejection needs "
                               "reasons and only a rejection takes them; an edit carries the edited "
                               "question, whose options MMAU's matcher must tell apart by their words.",
                          s404="No such question.",
                          s403="Not an annotator, or this question was not given to you (code no_lease).",
                          s409="playback_not_reported (play the clip to its end first: POST "
                               "clips/{id}/playback/), not_reviewed (a manual question: it is answered blind, not reviewed), "
                               "already_reviewed (a different review of yours is final), settled, or "
                               "stale_version (edited since you opened it), unchanged_edit (the edit is the "
                               "question as it stands: approve it instead)."),
    })
    def post(self, request, pk):
        question = get_object_or_404(Question.objects.select_related("question_set__review_pool", "work_item"), pk=pk)
        data = KmmauReviewIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        review, created = services.submit_review(
            question=question, acting_user=request.user, decision=v["decision"], reasons=v["reasons"],
            comment=v["comment"], edit=dict(v["edit"]) if v["edit"] else None, version=v["version"],
        )
        following = services.next_review(question_set=question.question_set, acting_user=request.user)
        question = review.question  # as the service left it (read again only for a review sent before)
        body = {"question": question.pk, "created": created, "decision": review.decision, "status": question.status,
                "version": question.version,
                "next": selectors.question_for_reviewer(following) if following else None}
        return Response(KmmauReviewDoneOut(body).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PlaybackView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request=None, responses={200: KmmauPlaybackOut, **error_responses(
        403, 404, 409, s403="Not an annotator.", s404="No such clip, or the clip is in no question set's corpora.",
        s409="playback_too_early: the clip's audio was not fetched, or not long enough ago to have played to "
             "its end (fetch its audio_url and let it play).")})
    def post(self, request, pk):
        clip = get_object_or_404(Clip.objects.select_related("audio"), pk=pk, corpus__question_sets__isnull=False)
        playback.report_playback(asset=clip.audio, acting_user=request.user)
        return Response(KmmauPlaybackOut({"clip": clip.pk, "playback_complete": True}).data)


class KmmauAuthorIn(StrictInput):
    set = serializers.IntegerField()
    capability = serializers.ChoiceField(choices=[str(c) for c in MANUAL_CAPABILITIES])
    text = serializers.CharField(max_length=limits.QUESTION)
    options = serializers.ListField(child=serializers.CharField(max_length=OPTION_LENGTH), min_length=4, max_length=4)
    correct_index = serializers.IntegerField(min_value=0, max_value=3)
    start_seconds = serializers.FloatField(required=False, allow_null=True, default=None)
    end_seconds = serializers.FloatField(required=False, allow_null=True, default=None)


class AuthorView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request=KmmauAuthorIn, responses={
        201: KmmauAuthoredOut, 200: OpenApiResponse(KmmauAuthoredOut, description="The same question again: the stored one."),
        **error_responses(400, 403, 404, 409,
                          s400="The body is malformed, or the question is not a valid one for its capability "
                               "(options that are empty, the same, or not told apart by their words; a "
                               "segment outside the clip).",
                          s403="Not an annotator.",
                          s404="No such clip or question set, or the clip is not in the set's corpora.",
                          s409="playback_not_reported (play the clip to its end first) or already_authored "
                               "(the clip has a different question of this capability in the set)."),
    })
    def post(self, request, pk):
        clip = get_object_or_404(Clip.objects.select_related("audio"), pk=pk)
        data = KmmauAuthorIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        question_set = get_object_or_404(QuestionSet, pk=v["set"])
        question, created = services.author_question(
            question_set=question_set, clip=clip, acting_user=request.user, capability=v["capability"], text=v["text"],
            options=v["options"], correct_index=v["correct_index"], start_seconds=v["start_seconds"],
            end_seconds=v["end_seconds"],
        )
        return Response(KmmauAuthoredOut({"question": question.pk, "status": question.status, "created": created}).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class NextAnswerView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request=None, responses={
        200: OpenApiResponse(KmmauAnswererQuestionOut, description="The next authored question to answer blind; "
                                                                   "never one of your own."),
        204: OpenApiResponse(description="Nothing left to answer."),
        **error_responses(403, 404, s403="Not an annotator.", s404="No such question set."),
    })
    def post(self, request, pk):
        question_set = get_object_or_404(QuestionSet, pk=pk)
        question = services.next_blind_answer(question_set=question_set, acting_user=request.user)
        if question is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(KmmauAnswererQuestionOut(selectors.question_for_answerer(question)).data)


class KmmauAnswerIn(StrictInput):
    # Not trimmed here: whether the text names an option is the question's to say (409 no_such_option).
    choice = serializers.CharField(max_length=OPTION_LENGTH, trim_whitespace=False,
                                   help_text="the text of the chosen option, as shown")


class AnswerView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(request=KmmauAnswerIn, responses={
        201: KmmauAnsweredOut, 200: OpenApiResponse(KmmauAnsweredOut, description="The same answer again: the stored one."),
        **error_responses(400, 403, 404, 409,
                          s400="The body is malformed (choice is text, at most the length of an option).",
                          s403="Not an annotator, your own question (code own_question), or it was not "
                               "given to you (code no_lease).",
                          s404="No such question.",
                          s409="no_such_option (the choice is not one of the question's options), "
                               "playback_not_reported, already_answered (a different answer of yours), settled, "
                               "or not_manual (agent questions are reviewed, not answered)."),
    })
    def post(self, request, pk):
        question = get_object_or_404(Question.objects.select_related("clip", "work_item"), pk=pk)
        data = KmmauAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        answer, created = services.submit_blind_answer(question=question, acting_user=request.user,
                                                       choice=data.validated_data["choice"])
        question.refresh_from_db(fields=["status"])
        # The answerer learns whether it matched only after answering; never the author's choice.
        return Response(KmmauAnsweredOut({"question": question.pk, "created": created, "matches": answer.matches,
                                     "status": question.status}).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class QuestionView(APIView):
    permission_classes = [Can("authoring.work")]

    @extend_schema(responses={200: KmmauEscalationOut, **error_responses(
        403, 404, s403="Only the question's author or an admin may read it here.", s404="No such question.")})
    def get(self, request, pk):
        question = fetch(request, Question.objects.select_related("clip__audio", "author"), pk, "authoring.read_question")
        return Response(KmmauEscalationOut(selectors.escalation_view(question)).data)


class SummaryView(APIView):
    permission_classes = [Can("authoring.manage")]

    @extend_schema(responses={200: KmmauSummaryOut,
                              **error_responses(403, 404, s403="Admins only.", s404="No such question set.")})
    def get(self, request, pk):
        return Response(KmmauSummaryOut(selectors.set_summary(get_object_or_404(QuestionSet, pk=pk))).data)
