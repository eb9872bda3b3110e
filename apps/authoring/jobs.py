"""Long KMMAU work as jobs (apps/jobs): corpus import from an upload, rule-based generation, agent-written
questions. Thin adapters: the work is in services and agent_questions."""

import tempfile
from pathlib import Path

from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils.translation import gettext

from apps.authoring.agent_questions import write_questions
from apps.authoring.models import Corpus, QuestionSet
from apps.authoring.services import generate_rule_questions, import_corpus
from apps.core.archives import extract_zip
from apps.core.errors import ApplicationError, FileRefused
from apps.jobs.models import ATTENTION_KEY, Job
from apps.jobs.services import job_handler, needing_attention

UPLOAD_FOLDER = "authoring-imports"


@job_handler("authoring.import_corpus")
def import_corpus_job(job, progress):
    """params: upload (storage name of a zip holding the corpus file and its audio), name, format, license,
    path (the corpus file or folder inside the zip, "" for the zip's root). A refusal fails the job with
    every problem in result["errors"]."""
    params = job.params
    try:
        if not default_storage.exists(params["upload"]):
            raise FileRefused(gettext("the uploaded file is no longer stored; upload it again"), file=params.get("label", "upload"))
        with tempfile.TemporaryDirectory() as tmp, default_storage.open(params["upload"], "rb") as fh:
            root = Path(tmp)
            extract_zip(fh, root, name=params["label"])
            corpus = import_corpus(name=params["name"], fmt=params["format"], path=root / params.get("path", ""),
                                   license=params.get("license", ""), source=params["label"],
                                   acting_user=job.created_by, progress=progress)
    except ApplicationError as refused:
        errors = [str(p) for p in getattr(refused, "problems", [])] or [refused.message]
        Job.objects.filter(pk=job.pk).update(result={"errors": errors})
        default_storage.delete(params["upload"])
        raise
    default_storage.delete(params["upload"])
    return {"corpus": corpus.pk, "name": corpus.name, "clips": corpus.clips.count()}


@job_handler("authoring.generate")
def generate_job(job, progress):
    """params: set, corpus, capabilities (list, optional). Re-running adds only what is missing."""
    question_set = QuestionSet.objects.get(pk=job.params["set"])
    corpus = Corpus.objects.get(pk=job.params["corpus"])
    return generate_rule_questions(question_set=question_set, corpus=corpus,
                                   capabilities=job.params.get("capabilities") or None, progress=progress)


@job_handler("authoring.agent_questions")
def agent_questions_job(job, progress):
    """params: set, corpus, capability, limit, retry (write again the ones needing attention). Questions
    already written are skipped on resume. The result links to the ones needing attention, with a retry."""
    question_set = QuestionSet.objects.get(pk=job.params["set"])
    corpus = Corpus.objects.get(pk=job.params["corpus"])
    counts = write_questions(question_set=question_set, corpus=corpus, capability=job.params["capability"],
                             limit=job.params.get("limit"), job=job, progress=progress,
                             retry=bool(job.params.get("retry")) and job.attempts <= 1)
    if counts["needs_attention"]:
        url = reverse("authoring:dashboard", args=[question_set.pk]) + "#needs-attention"
        counts[ATTENTION_KEY] = needing_attention(counts["needs_attention"], url)
    return counts
