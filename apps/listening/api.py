"""The listening API for automated clients (paths fixed by the issue):

POST /api/listening/tests/{id}/next/        200 {"clip": {"id", "audio_url"}, "lease_expires_at"} | 204
POST /api/listening/clips/{id}/playback/    200 once the clip played to its end (409 without a lease, or
                                            before the clip could have played since it was served); optional
                                            for a client, the page uses it to unlock its buttons
POST /api/listening/clips/{id}/ratings/     {"score": 1..5} -> 201; same again 200; different 409;
                                            no lease / too early / slot taken 409 with a reason;
                                            201/200 carry "next" (the next clip, as `next` answers, or null)
                                            and "progress" {"rated", "clips"}: one call per clip
GET  /api/listening/tests/{id}/summary/     admin: clips, ratings, complete clips, alpha, flagged listeners

Listener responses carry only the clip's opaque id and audio URL: no transcript, speaker, system or other
metadata that could bias a rating."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can
from apps.core.api import StrictInput, error_responses
from apps.listening import selectors, services
from apps.listening.models import Clip, ListeningTest


class ClipOut(serializers.Serializer):
    id = serializers.IntegerField()
    audio_url = serializers.CharField()


class NextOut(serializers.Serializer):
    clip = ClipOut()
    lease_expires_at = serializers.DateTimeField()


class NextClipView(APIView):
    permission_classes = [Can("listening.rate")]

    @extend_schema(request=None, responses={
        200: NextOut, 204: OpenApiResponse(description="Nothing left for you in this test (or you were excluded)."),
        **error_responses(403, 404, s403="Not a listener, or consent_required: agree to the test's instructions "
                                         "on its page (the detail gives the address) first.",
                          s404="No such test open to you."),
    })
    def post(self, request, pk: int):
        test = get_object_or_404(selectors.tests_with_consent(request.user), pk=pk)
        services.require_consent(test=test, acting_user=request.user)
        served = services.next_clip(test=test, acting_user=request.user)
        if served is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(_next_body(*served))


def _next_body(assignment, clip) -> dict:
    return {"clip": {"id": clip.pk, "audio_url": clip.asset.get_absolute_url()}, "lease_expires_at": assignment.expires_at}


class PlaybackOut(serializers.Serializer):
    clip = serializers.IntegerField()
    playback_complete = serializers.BooleanField()


class PlaybackView(APIView):
    permission_classes = [Can("listening.rate")]

    @extend_schema(request=None, responses={
        200: PlaybackOut, **error_responses(409, s409="No live lease on this clip (code no_lease), or already rated."),
    })
    def post(self, request, pk: int):
        clip = get_object_or_404(Clip.objects.select_related("asset"), pk=pk)
        services.report_playback(clip=clip, acting_user=request.user)
        return Response({"clip": clip.pk, "playback_complete": True})


class RatingIn(StrictInput):
    score = serializers.IntegerField(min_value=1, max_value=5)


class ProgressOut(serializers.Serializer):
    rated = serializers.IntegerField(help_text="Clips you have rated in this test.")
    clips = serializers.IntegerField(help_text="Clips in the test (at most this many can come to you).")


class RatingOut(serializers.Serializer):
    clip = serializers.IntegerField()
    score = serializers.IntegerField()
    rated_at = serializers.DateTimeField()
    next = NextOut(allow_null=True, help_text=(
        "Your next clip, leased to you as `next` would (its playback gate counts from this response): play "
        "it to its end and rate it. Null when nothing is left for you in this test."))
    progress = ProgressOut()


class RatingView(APIView):
    permission_classes = [Can("listening.rate")]

    @extend_schema(request=RatingIn, responses={
        201: OpenApiResponse(RatingOut, description="Stored; `next` carries your next clip and `progress` your count, "
                                                    "so a client needs one call per clip."),
        200: OpenApiResponse(RatingOut, description="The same score again: the stored rating (and the next clip)."),
        **error_responses(404, 409, s409="no_lease, slot_taken, playback_too_early (rated before the clip could have played "
                                                "to its end since it was served), or score_conflict (a different score)."),
    })
    def post(self, request, pk: int):
        clip = selectors.clip_for_listener(pk, request.user)
        data = RatingIn(data=request.data)
        data.is_valid(raise_exception=True)
        rating, created = services.rate_clip(clip=clip, acting_user=request.user, score=data.validated_data["score"])
        served = services.next_clip_after_rating(test=clip.test, acting_user=request.user)
        body = {
            "clip": clip.pk, "score": rating.score, "rated_at": rating.rated_at,
            "next": _next_body(*served) if served else None,
            "progress": selectors.listener_progress(clip.test, request.user),
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class FlaggedOut(serializers.Serializer):
    username = serializers.CharField()
    flags = serializers.ListField(child=serializers.CharField())
    excluded = serializers.BooleanField()


class SummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    clips = serializers.IntegerField()
    gold_clips = serializers.IntegerField()
    ratings = serializers.IntegerField()
    complete_clips = serializers.IntegerField()
    ratings_per_clip = serializers.IntegerField()
    alpha_ordinal = serializers.FloatField(allow_null=True)
    flagged_listeners = FlaggedOut(many=True)
    excluded_listeners = serializers.ListField(child=serializers.CharField())


class SummaryView(APIView):
    permission_classes = [Can("listening.manage")]

    @extend_schema(responses=SummaryOut)
    def get(self, request, pk: int):
        test = get_object_or_404(ListeningTest.objects.select_related("pool"), pk=pk)
        return Response(selectors.summary(test))
