"""Writes of KMMAU construction: corpus import, question sets and targets, rule-based generation, reviews
of agent-written questions, manual authoring with a blind second answer, escalations, scoring runs.

Reviews and blind answers go through the shared engine (apps/queues): a set's review pool hands each
agent-written question to K reviewers (default 2), its answer pool hands each authored question to one
blind answerer who is not its author. Every submission locks the question's WorkItem row first
(queues.lease_for_submission), so the reviews of one question are serialised and settle exactly once."""

import hashlib
import random
import re
import tempfile
import wave
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext
from pydantic import Field, field_validator

from apps.audio import playback as playback_gate
from apps.audio.info import AudioInfo, AudioRejected
from apps.audio.inspection import inspect_many
from apps.audio.models import AudioPlayback
from apps.audio.store import atomic_import, store_validated
from apps.authoring import morphology
from apps.authoring.capabilities import (
    MANUAL_CAPABILITIES,
    RULE_CAPABILITIES,
    SPECS,
    Capability,
    Method,
    default_targets,
)
from apps.authoring.corpora import ParsedRow, clean_written, nfc, parse_corpus
from apps.authoring.exports import mmau_rows
from apps.authoring.generation import (
    METADATA_BUILDERS,
    METADATA_FIELDS,
    TRANSCRIPT_BUILDERS,
    Candidate,
    ClipFacts,
    Skip,
    constant_answer_skip,
)
from apps.authoring.models import (
    BlindAnswer,
    Clip,
    Corpus,
    Decision,
    EscalationResolution,
    Question,
    QuestionSet,
    QuestionStatus,
    RejectReason,
    Review,
    ScoreRun,
)
from apps.authoring.scoring import prediction_of, score
from apps.authoring.validation import clean_question, normalise
from apps.core import limits
from apps.core.actors import actor
from apps.core.errors import Conflict, FileProblem, FileRefused, Forbidden, InvalidInput, NotFound
from apps.core.limits import bounded
from apps.core.tabular import RowModel, read_table
from apps.instructions import defaults as default_instructions
from apps.instructions import services as instructions
from apps.queues import services as queues
from apps.queues.models import WorkItem

DEFAULT_LICENSES = {"kss": "CC-BY-NC-SA-4.0", "zeroth": "CC-BY-4.0"}
_SPDX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+-]*$|^LicenseRef-[A-Za-z0-9.-]+$")
PCM_RATE = 16000  # KsponSpeech: 16 kHz, 16-bit, mono raw PCM


# ---- corpora ----------------------------------------------------------------------------------------------


def import_corpus(*, name: str, fmt: str, path: Path, audio_dir: Path | None = None, license: str = "",
                  source: str = "", acting_user=None, progress=None) -> Corpus:
    """Import a corpus, all or nothing, in two steps: check_corpus reads every row and checks every audio
    file, raising every problem together as FileRefused naming file, line and field; then store_corpus
    writes the audio and the clips in one transaction from what the check found (each file decoded once)."""
    name, license = _clean_corpus_fields(name=name, fmt=fmt, license=license)
    with tempfile.TemporaryDirectory() as tmp:  # KsponSpeech's raw PCM, as WAV, lives here until stored
        checked = check_corpus(fmt=fmt, path=Path(path), audio_dir=Path(audio_dir) if audio_dir else None,
                               scratch=Path(tmp), progress=progress)
        return store_corpus(checked, name=name, fmt=fmt, license=license, source=source or str(path),
                            source_sha256=_digest(Path(path)), acting_user=acting_user, progress=progress)


def _clean_corpus_fields(*, name: str, fmt: str, license: str) -> tuple[str, str]:
    name = (name or "").strip()
    if not name:
        raise InvalidInput(gettext("a corpus needs a name"), field="name")
    license = (license or DEFAULT_LICENSES.get(fmt, "")).strip()
    if not license:
        raise InvalidInput(gettext(
            "say the licence of this %(fmt)s corpus (an SPDX identifier such as CC-BY-NC-2.0)"
        ) % {"fmt": fmt},
                           field="license")
    if not _SPDX.match(license):
        raise InvalidInput(gettext("%(license)r is not an SPDX licence identifier") % {"license": license}, field="license")
    if Corpus.objects.filter(name=name).exists():
        raise Conflict(gettext("a corpus named %(name)r already exists") % {"name": name}, code="corpus_exists")
    return name, license


@dataclass
class CheckedClip:
    """A corpus row whose audio passed the check: the file to store (a raw PCM's WAV copy) and what the
    check found in it, so storing it needs no second look."""

    item: ParsedRow
    audio: Path
    info: AudioInfo


def check_corpus(*, fmt: str, path: Path, audio_dir: Path | None, scratch: Path, progress=None) -> list[CheckedClip]:
    """Every row read and every distinct audio file checked (side by side, apps.audio.inspection.inspect_many)
    before anything is written; raises FileRefused with every problem, each bad file named by the rows that
    use it. Raw PCM is wrapped as WAV in `scratch`, which must outlive the store."""
    try:
        parsed = parse_corpus(fmt, path, audio_dir)
    except ValueError as exc:
        raise InvalidInput(str(exc), field="format") from None
    problems = [_problem(p) for p in parsed.problems]
    present = [item for item in parsed.rows if item.audio_path.is_file()]  # a missing one is reported already
    targets: dict[Path, Path] = {}
    for item in present:
        source = item.audio_path.resolve()
        if source not in targets:
            targets[source] = (_pcm_to_wav(source, scratch / f"{len(targets)}.wav")
                               if source.suffix.lower() == ".pcm" else source)
    files = [(targets[item.audio_path.resolve()], item.row.audio) for item in present]
    on_checked = None
    if progress:
        progress.set_total(len(targets) + len(parsed.rows), message="Checking every audio file")

        def on_checked():  # the job's bar moves with the checks, and a cancel stops them
            progress.advance()
    outcomes = inspect_many(files, on_checked=on_checked)
    checked = []
    for item in present:
        audio = targets[item.audio_path.resolve()]
        outcome = outcomes[audio.resolve()]
        if isinstance(outcome, AudioRejected):
            problems.append(FileProblem(file=item.file, line=item.line, field="audio",
                                        reason=f"undecodable audio {item.row.audio!r}: {outcome.reason}"))
        else:
            checked.append(CheckedClip(item=item, audio=audio, info=outcome))
    if problems:
        raise FileRefused(problems=problems[:200], more=max(0, len(problems) - 200))
    if not parsed.rows:
        raise FileRefused(gettext("no utterances found"), file=path.name)
    return checked


def store_corpus(checked: list[CheckedClip], *, name: str, fmt: str, license: str, source: str, source_sha256: str,
                 acting_user=None, progress=None) -> Corpus:
    """Write a checked corpus in one transaction: each distinct audio content once, from the check's
    findings (apps.audio.store.store_validated), then the corpus and its clips; a failure removes the
    audio files it stored (atomic_import)."""
    with atomic_import():
        corpus = Corpus.objects.create(name=name, format=fmt, license=license, source=source,
                                       source_sha256=source_sha256, imported_by=actor(acting_user))
        assets = store_validated([(c.audio, c.info, Path(c.item.row.audio).name) for c in checked])
        clips = []
        for c in checked:
            row = c.item.row
            clips.append(Clip(
                corpus=corpus, utterance_id=row.utterance_id, audio=assets[c.info.sha256], raw_transcript=row.transcript,
                transcript=nfc(row.transcript), clean_transcript=clean_written(row.transcript),
                speaker_id=row.speaker_id, gender=row.gender, age_group=row.age_group,
                num_speakers=row.num_speakers, source_file=c.item.file, source_line=c.item.line,
            ))
            if progress:
                progress.advance(message=f"Stored {len(clips)} of {len(checked)} utterances")
        Clip.objects.bulk_create(clips, batch_size=500)
    return corpus


def _problem(text: str) -> FileProblem:
    """A parser problem `file line N: field: reason` as a FileProblem."""
    match = re.match(r"^(?P<file>.+?) line (?P<line>\d+): (?P<field>[^:]+): (?P<reason>.*)$", text)
    if match:
        return FileProblem(file=match["file"], line=int(match["line"]), field=match["field"], reason=match["reason"])
    file, _, reason = text.partition(": ")
    return FileProblem(file=file, reason=reason or text)


def _pcm_to_wav(pcm: Path, target: Path) -> Path:
    with wave.open(str(target), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(PCM_RATE)
        out.writeframes(pcm.read_bytes())
    return target


def _digest(path: Path) -> str:
    if not path.is_file():
        return ""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---- question sets ----------------------------------------------------------------------------------------


def create_question_set(*, name: str, acting_user=None, reviewers_per_question: int = 2, targets: dict | None = None,
                        seed: int = 0, corpora=()) -> QuestionSet:
    name = (name or "").strip()
    if not name:
        raise InvalidInput(gettext("a question set needs a name"), field="name")
    if QuestionSet.objects.filter(name=name).exists():
        raise Conflict(gettext("a question set named %(name)r already exists") % {"name": name}, code="set_exists")
    if not isinstance(reviewers_per_question, int) or reviewers_per_question < 1:
        raise InvalidInput(gettext("reviewers_per_question must be a whole number of at least 1"), field="reviewers_per_question")
    with transaction.atomic():
        question_set = QuestionSet.objects.create(
            name=name, reviewers_per_question=reviewers_per_question, seed=seed,
            targets=_clean_targets(targets) if targets is not None else default_targets(),
            review_pool=queues.create_pool(name=f"KMMAU review: {name}", kind="authoring.review",
                                           required_per_item=reviewers_per_question),
            answer_pool=queues.create_pool(name=f"KMMAU blind answers: {name}", kind="authoring.answer",
                                           required_per_item=1),
            created_by=actor(acting_user),
        )
        question_set.corpora.add(*corpora)
    return question_set


def get_or_create_question_set(*, name: str, acting_user=None) -> QuestionSet:
    existing = QuestionSet.objects.filter(name=name).first()
    return existing or create_question_set(name=name, acting_user=acting_user)


def _clean_targets(targets: dict) -> dict[str, int]:
    if not isinstance(targets, dict):
        raise InvalidInput(gettext("targets must map capabilities to counts"), field="targets")
    clean = default_targets()
    for capability, count in targets.items():
        if capability not in SPECS:
            raise InvalidInput(gettext("unknown capability %(capability)r") % {"capability": capability}, field="targets")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(gettext(
                "the target for %(capability)s must be a whole number, not %(count)r"
            ) % {"capability": capability, "count": count}, field="targets")
        clean[capability] = count
    return clean


def set_targets(*, question_set: QuestionSet, targets: dict, acting_user) -> QuestionSet:
    question_set.targets = _clean_targets({**question_set.targets, **targets})
    question_set.save(update_fields=["targets"])
    return question_set


# ---- rule-based generation --------------------------------------------------------------------------------

BATCH = 500


def generate_rule_questions(*, question_set: QuestionSet, corpus: Corpus, capabilities=None, progress=None) -> dict:
    """Run the metadata and transcript rules over every clip of the corpus into the set. Safe to run again:
    a question the set already has for a clip (same capability) is not made twice. Returns per capability
    {"made", "already", "skipped": {reason: n}}. Rule-based questions need no review: their answer is
    measured, so they are accepted as made."""
    wanted = [Capability(c) for c in (capabilities or RULE_CAPABILITIES)]
    unknown = [c for c in wanted if c not in RULE_CAPABILITIES]
    if unknown:
        raise InvalidInput(gettext(
            "%(unknown)s is not made by rule; rule-based capabilities: %(rule_capabilities)s"
        ) % {"unknown": ', '.join(unknown), "rule_capabilities": ', '.join(RULE_CAPABILITIES)}, field="capability")
    question_set.corpora.add(corpus)
    report = {str(c): {"made": 0, "already": 0, "skipped": Counter()} for c in wanted}
    needs_text = any(c in TRANSCRIPT_BUILDERS for c in wanted)
    clips = corpus.clips.order_by("id").values_list("id", "gender", "age_group", "num_speakers", "clean_transcript")
    total = corpus.clips.count()
    if progress:
        progress.set_total(total, message=f"Generating questions from {total} clips")
    constant = {c: constant_answer_skip(c, set(corpus.clips.values_list(METADATA_FIELDS[c], flat=True).distinct()))
                for c in wanted if c in METADATA_FIELDS}
    existing = defaultdict(set)
    for clip_id, key in Question.objects.filter(question_set=question_set, clip__corpus=corpus).values_list("clip_id", "dedup_key"):
        existing[clip_id].add(key)
    batch: list = []

    def flush():
        facts = [ClipFacts(*row) for row in batch]
        analyses = morphology.analyse_many([f.transcript for f in facts]) if needs_text else [None] * len(facts)
        now = timezone.now()
        rows = []
        for fact, analysis in zip(facts, analyses, strict=True):
            for capability in wanted:
                rng = random.Random(f"{question_set.seed}:{fact.clip_id}:{capability}")
                if capability in METADATA_BUILDERS:
                    results = [constant.get(capability) or METADATA_BUILDERS[capability](fact, rng)]
                else:
                    results = TRANSCRIPT_BUILDERS[capability](fact, analysis, rng)
                    results = results if isinstance(results, list) else [results]
                for result in results:
                    if isinstance(result, Skip):
                        report[capability]["skipped"][result.reason] += 1
                    elif result.dedup_key in existing[fact.clip_id]:
                        report[capability]["already"] += 1
                    else:
                        rows.append(_rule_question(question_set, fact.clip_id, result, now))
                        existing[fact.clip_id].add(result.dedup_key)
                        report[capability]["made"] += 1
        Question.objects.bulk_create(rows, batch_size=1000)
        if progress:
            progress.advance(len(batch))
        batch.clear()

    # No transaction around the whole run: each batch is one insert, so the job's progress is visible as it
    # goes, and a run that stops leaves whole batches that the next run (same dedup keys) skips.
    for row in clips.iterator(chunk_size=BATCH):
        batch.append(row)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    return {c: {**r, "skipped": dict(r["skipped"])} for c, r in report.items()}


def _rule_question(question_set: QuestionSet, clip_id: int, candidate: Candidate, now) -> Question:
    return Question(
        question_set=question_set, capability=candidate.capability, method=candidate.method, clip_id=clip_id,
        text=candidate.text, options=candidate.options, correct_index=candidate.correct_index,
        provenance=candidate.provenance, dedup_key=candidate.dedup_key, status=QuestionStatus.ACCEPTED,
        settled_at=now,
    )


# ---- review of agent-written questions --------------------------------------------------------------------


def send_to_review(question: Question) -> Question:
    """Give the question a WorkItem in its set's review pool (K reviewers)."""
    [item_id] = queues.add_items(question.question_set.review_pool, 1)
    Question.objects.filter(pk=question.pk).update(work_item_id=item_id, status=QuestionStatus.IN_REVIEW)
    question.work_item_id, question.status = item_id, QuestionStatus.IN_REVIEW
    return question


def next_review(*, question_set: QuestionSet, acting_user) -> Question | None:
    """The reviewer's current question (their live lease) or the next one in their own order."""
    assignment = queues.claim_next(question_set.review_pool, acting_user)
    if assignment is None:
        return None
    return Question.objects.select_related("clip__audio", "clip__corpus").get(work_item_id=assignment.item_id)


def _clean_review(decision, reasons, comment, edit, question: Question):
    bounded(comment, field="comment", limit=limits.COMMENT)
    if decision not in Decision.values:
        raise InvalidInput(gettext(
            "decision must be approve, edit or reject, not %(decision)r"
        ) % {"decision": decision}, field="decision")
    reasons = list(dict.fromkeys(reasons or []))
    unknown = [r for r in reasons if r not in RejectReason.values]
    if unknown:
        raise InvalidInput(gettext(
            "unknown reason %(unknown)r; expected %(values)s"
        ) % {"unknown": unknown[0], "values": ', '.join(RejectReason.values)}, field="reasons")
    if decision == Decision.REJECT and not reasons:
        raise InvalidInput(gettext("a rejection needs at least one reason"), field="reasons")
    if decision != Decision.REJECT and reasons:
        raise InvalidInput(gettext("only a rejection takes reasons"), field="reasons")
    after = None
    if decision == Decision.EDIT:
        if not isinstance(edit, dict):
            raise InvalidInput(gettext("an edit needs the edited question: text, options and correct_index"), field="edit")
        text, options, index = clean_question(question.capability, edit.get("text"), edit.get("options"),
                                              edit.get("correct_index"))
        after = {"text": text, "options": options, "correct_index": index}
        if after == _snapshot(question):
            # The question as it stands is stored state, not the request's form: a 409, as the README asks.
            raise Conflict(gettext("the edit changes nothing; approve the question instead"), code="unchanged_edit")
    elif edit:
        raise InvalidInput(gettext("only an edit carries an edited question"), field="edit")
    return reasons, (comment or "").strip(), after


def _snapshot(question: Question) -> dict:
    return {"text": question.text, "options": list(question.options), "correct_index": question.correct_index}


def submit_review(*, question: Question, acting_user, decision: str, reasons=None, comment: str = "",
                  edit: dict | None = None, version: int | None = None) -> tuple[Review, bool]:
    """Approve, edit or reject, after playing the clip to its end (apps.audio.playback.report_playback). An edit is stored beside the question as it was and needs one more approval
    (the question's WorkItem takes one more review). Kept only if no reviewer rejects: the question settles
    once every review it needs is in. The same review sent twice stores one. Returns (review, created)."""
    if question.method != Method.AGENT or question.work_item_id is None:
        raise Conflict(gettext("only agent-written questions are reviewed"), code="not_reviewed")
    reasons, comment, after = _clean_review(decision, reasons, comment, edit, question)
    with transaction.atomic():
        assignment = _lease(question.work_item, acting_user)
        # With the item's row lock held (_lease), this statement sees any review of this reviewer's that
        # was stored before: the question, whether they reviewed it and whether they played its clip to the
        # end (the reviewer judges what the audio says: the blind answer's gate), in one query.
        question = Question.objects.select_for_update(of=("self",)).annotate(
            mine=Subquery(Review.objects.filter(question=OuterRef("pk"), reviewer=acting_user).values("pk")[:1]),
            played=Exists(AudioPlayback.objects.filter(asset=OuterRef("clip__audio"), user=acting_user)),
        ).get(pk=question.pk)
        if not question.played:
            raise Conflict(gettext("listen to the clip to its end first"), code="playback_not_reported")
        if question.mine is not None:
            mine = Review.objects.get(pk=question.mine)
            if (mine.decision, mine.reasons, mine.after) == (decision, reasons, after):
                return mine, False
            raise Conflict(gettext("you already reviewed this question; reviews are final"), code="already_reviewed")
        if question.status != QuestionStatus.IN_REVIEW:
            raise Conflict(gettext(
                "the question is %(status)s, not in review"
            ) % {"status": question.get_status_display().lower()}, code="settled")
        if version is not None and version != question.version:
            raise Conflict(gettext(
                "the question was edited since you opened it (version %(version)s now); read it again"
            ) % {"version": question.version}, code="stale_version")
        review = Review.objects.create(
            question=question, reviewer=acting_user, decision=decision, reasons=reasons, comment=comment,
            version_seen=question.version, before=_snapshot(question) if after else None, after=after,
        )
        if after is not None:
            rejected = Review.objects.filter(question=question, decision=Decision.REJECT).exists()
            if question.original is None:
                question.original = _snapshot(question)
            question.text, question.options, question.correct_index = after["text"], after["options"], after["correct_index"]
            question.version += 1
            question.save(update_fields=["text", "options", "correct_index", "version", "original"])
            if not rejected:
                # The edited question needs one more approval: one more review slot, under the item's row lock.
                work_item = question.work_item
                WorkItem.objects.filter(pk=work_item.pk).update(
                    capacity=(work_item.capacity or question.question_set.reviewers_per_question) + 1, complete=False
                )
        _settle_review(question, queues.mark_submitted(assignment).item_complete)
    return review, True


def _settle_review(question: Question, item_complete: bool | None) -> None:
    if item_complete is None:  # the submission was counted before: read where the item stands
        item_complete = WorkItem.objects.filter(pk=question.work_item_id).values_list("complete", flat=True).get()
    if not item_complete:
        return
    decisions = set(Review.objects.filter(question=question).values_list("decision", flat=True))
    status = QuestionStatus.REJECTED if Decision.REJECT in decisions else QuestionStatus.ACCEPTED
    Question.objects.filter(pk=question.pk, status=QuestionStatus.IN_REVIEW).update(status=status, settled_at=timezone.now())
    question.status = status


def _lease(work_item: WorkItem, user):
    try:
        return queues.lease_for_submission(work_item, user)
    except queues.NoLease:
        raise Forbidden(gettext("this question was not given to you; ask for the next one"), code="no_lease") from None
    except queues.ItemClosed:
        raise Conflict(gettext("this question is settled"), code="settled") from None
    except queues.QueueError as exc:
        raise Conflict(str(exc), code=exc.code) from None


# ---- manual authoring and blind answers -------------------------------------------------------------------


def _require_played(clip: Clip, user) -> None:
    if not playback_gate.has_played(clip.audio_id, user):
        raise Conflict(gettext("listen to the clip to its end first"), code="playback_not_reported")


def _segment(clip: Clip, start, end) -> tuple[float | None, float | None]:
    if start is None and end is None:
        return None, None
    if start is None or end is None:
        raise InvalidInput(gettext("give both start_seconds and end_seconds, or neither"), field="start_seconds")
    start, end = float(start), float(end)
    if not 0 <= start < end <= clip.audio.duration_seconds + 0.01:
        raise InvalidInput(gettext(
            "the segment must lie within the clip (0 to %(duration_seconds).2f s) and end after it starts"
        ) % {"duration_seconds": clip.audio.duration_seconds}, field="end_seconds")
    return start, end


def author_question(*, question_set: QuestionSet, clip: Clip, acting_user, capability: str, text: str, options: list,
                    correct_index: int, start_seconds=None, end_seconds=None) -> tuple[Question, bool]:
    """An annotator who listened to the clip writes a question (general counting, role/profession). It then
    waits for a blind second answer. One manual question per clip and capability in a set; sending the
    same question again returns it (created False)."""
    if capability not in MANUAL_CAPABILITIES:
        raise InvalidInput(gettext(
            "%(capability)r is not authored by hand; manual capabilities: %(manual_capabilities)s"
        ) % {"capability": capability, "manual_capabilities": ', '.join(MANUAL_CAPABILITIES)}, field="capability")
    if not question_set.corpora.filter(pk=clip.corpus_id).exists():
        raise NotFound(gettext("this clip is not part of the question set's corpora"))
    text, options, correct_index = clean_question(capability, text, options, correct_index)
    start, end = _segment(clip, start_seconds, end_seconds)
    _require_played(clip, acting_user)
    with transaction.atomic():
        existing = Question.objects.select_for_update().filter(question_set=question_set, clip=clip,
                                                               dedup_key=capability).first()
        if existing is not None:
            if existing.author_id == acting_user.pk and (existing.text, existing.options, existing.correct_index) == (
                    text, options, correct_index):
                return existing, False
            raise Conflict(gettext(
                "this clip already has a %(capability)s question in the set"
            ) % {"capability": capability}, code="already_authored")
        question = Question.objects.create(
            question_set=question_set, capability=capability, method=Method.MANUAL, clip=clip, start_seconds=start,
            end_seconds=end, text=text, options=options, correct_index=correct_index, dedup_key=capability,
            status=QuestionStatus.AWAITING_ANSWER, author=acting_user,
            provenance={"method": Method.MANUAL},  # who wrote it is `author`; exported rows name no person
        )
        [question.work_item_id] = queues.add_items(question_set.answer_pool, 1)
        question.save(update_fields=["work_item"])
    return question, True


def next_blind_answer(*, question_set: QuestionSet, acting_user) -> Question | None:
    """The next authored question for this annotator to answer blind; never one of their own (those are
    declined as they come up: a released item would be offered to them again when no one else can take it)."""
    while True:
        assignment = queues.claim_next(question_set.answer_pool, acting_user)
        if assignment is None:
            return None
        question = Question.objects.select_related("clip__audio").get(work_item_id=assignment.item_id)
        if question.author_id != acting_user.pk:
            return question
        queues.decline(assignment, reason="the author of this question")


def submit_blind_answer(*, question: Question, acting_user, choice: str) -> tuple[BlindAnswer, bool]:
    """The second annotator's answer, by option text. A match accepts the question; a mismatch escalates it
    to its author and an admin with both answers. The same answer twice stores one."""
    if question.method != Method.MANUAL or question.work_item_id is None:
        raise Conflict(gettext("only manually authored questions are answered blind"), code="not_manual")
    if question.author_id == acting_user.pk:
        raise Forbidden(gettext("you wrote this question; a different annotator answers it"), code="own_question")
    choice = normalise(choice or "")
    if choice not in question.options:
        # The options are the question's state, not the request's form: a 409, as for a consultation answer.
        raise Conflict(gettext("choose one of the question's options (send its text as shown)"), code="no_such_option")
    chosen = question.options.index(choice)
    _require_played(question.clip, acting_user)
    with transaction.atomic():
        assignment = _lease(question.work_item, acting_user)
        question = Question.objects.select_for_update(of=("self",)).get(pk=question.pk)
        mine = BlindAnswer.objects.filter(question=question, answerer=acting_user).first()
        if mine is not None:
            if mine.chosen_index == chosen:
                return mine, False
            raise Conflict(gettext("you already answered this question"), code="already_answered")
        if question.status != QuestionStatus.AWAITING_ANSWER:
            raise Conflict(gettext("this question already has its blind answer"), code="settled")
        answer = BlindAnswer.objects.create(question=question, answerer=acting_user, chosen_index=chosen,
                                            matches=chosen == question.correct_index)
        queues.mark_submitted(assignment)
        status = QuestionStatus.ACCEPTED if answer.matches else QuestionStatus.ESCALATED
        Question.objects.filter(pk=question.pk).update(status=status,
                                                       settled_at=timezone.now() if answer.matches else None)
    return answer, True


def resolve_escalation(*, question: Question, acting_user, accept: bool, correct_index: int | None = None,
                       note: str = "") -> Question:
    """An admin settles a question whose author and blind answerer disagreed: accept it (with the correct
    option they decide on) or reject it."""
    bounded(note, field="note", limit=limits.NOTE)
    if not acting_user.is_sori_admin:
        raise Forbidden(gettext("only an admin resolves escalated questions"))
    with transaction.atomic():
        question = Question.objects.select_for_update().get(pk=question.pk)
        if question.status != QuestionStatus.ESCALATED:
            raise Conflict(gettext("this question is not escalated"), code="not_escalated")
        if accept:
            index = question.correct_index if correct_index is None else correct_index
            _, _, index = clean_question(question.capability, question.text, question.options, index)
            question.correct_index = index
        EscalationResolution.objects.create(question=question, resolved_by=acting_user, accepted=accept,
                                            correct_index=question.correct_index if accept else None, note=note)
        question.status = QuestionStatus.ACCEPTED if accept else QuestionStatus.REJECTED
        question.settled_at = timezone.now()
        question.save(update_fields=["status", "settled_at", "correct_index"])
    return question


# ---- scoring ----------------------------------------------------------------------------------------------


def read_predictions(data: bytes, *, file: str) -> dict[str, str]:
    """{id: model answer} from a JSON array or JSONL of objects with `id` and `model_output` (or
    `model_prediction`), e.g. the exported file after a runner filled it in, read by the shared tabular
    reader (apps.core.tabular.read_table), which refuses naming file, line and field."""
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]  # told apart by the first character, whatever the name
    rows = read_table(data, _PredictionRow, name=file, format="json" if start == b"[" else "jsonl", unique="id",
                      blank_is_missing=False)
    return {row.id: row.prediction for _, row in rows}


class _PredictionRow(RowModel):
    id: str = Field(min_length=1)
    model_prediction: Any = None  # before model_output, so model_output's check below can see it
    model_output: Any = Field(default=None, validate_default=True)

    @field_validator("model_output")
    @classmethod
    def _an_answer(cls, value, info):
        # A row needs one of the two keys; the problem names model_output, MMAU's key.
        if value is None and info.data.get("model_prediction") is None:
            raise ValueError("missing (model_output or model_prediction)")
        return value

    @property
    def prediction(self) -> str:
        return prediction_of({"model_output": self.model_output, "model_prediction": self.model_prediction})


def score_predictions(*, question_set: QuestionSet, data: bytes, file: str, model_name: str, acting_user=None):
    """Score a model's answers against the set's accepted questions (answers come from the database, never
    from the uploaded file) and store the result as a ScoreRun."""
    model_name = (model_name or "").strip()
    if not model_name:
        raise InvalidInput(gettext("name the model whose answers these are"), field="model")
    predictions = read_predictions(data, file=file)
    rows = mmau_rows(question_set)
    known = {r["id"] for r in rows}
    unknown = sorted(set(predictions) - known)
    if unknown:
        raise FileRefused(gettext(
            "%(unknown_count)s id(s) are not accepted questions of %(name)r, e.g. %(unknown)r"
        ) % {"unknown_count": len(unknown), "name": question_set.name, "unknown": unknown[0]}, file=file, field="id")
    result = score(rows, predictions)
    return ScoreRun.objects.create(question_set=question_set, model_name=model_name, file_name=file, result=result,
                                   created_by=actor(acting_user))


# --- participant instructions -------------------------------------------------------------------------------


def set_instructions(question_set: QuestionSet):
    return instructions.current(question_set, default=default_instructions.KMMAU)


def revise_instructions(*, question_set: QuestionSet, text_ko: str, text_en: str = "", acting_user=None):
    """The admin sets the set's annotator instructions (a new version once anyone reviewed under the old)."""
    return instructions.revise(owner=question_set, text_ko=text_ko, text_en=text_en, acting_user=acting_user,
                               default=default_instructions.KMMAU,
                               answers=Review.objects.filter(question__question_set=question_set), answered_at="created_at")
