import json

import pytest

from apps.sources.services import import_benchmark

# The default roles (settings.AGENTS_DEFAULT_ROLES): the reviewer is openai:gpt-4.1 and the meta-reviewer
# anthropic:claude-sonnet-4-5, so each request's model says which agent is asking.
REVIEWER_MODEL = "gpt-4.1"
META_MODEL = "claude-sonnet-4-5"

QUESTIONS = [
    ("What language do they speak in Switzerland?", "German"),
    ("What is the capital of Australia?", "Sydney"),
    ("How many legs does a spider have?", "eight"),
    ("Who wrote Hamlet?", "William Shakespeare"),
    ("What is the largest planet?", "Jupiter"),
]


def is_reviewer(body) -> bool:
    return body.get("model") == REVIEWER_MODEL


def is_meta(body) -> bool:
    return body.get("model") == META_MODEL


def prompt_text(body) -> str:
    return json.dumps(body, ensure_ascii=False)


@pytest.fixture(autouse=True)
def _one_sample_at_a_time(settings):
    """Worker threads cannot see a test transaction's rows; tests of the parallel path use transactional_db
    and set TRANSFER_REVIEW_WORKERS themselves."""
    settings.TRANSFER_REVIEW_WORKERS = 1
    settings.TRANSFER_TRANSLATE_WORKERS = 1
    settings.TRANSFER_NORMALIZE_WORKERS = 1


@pytest.fixture
def source_samples(db, tmp_path):
    """Five short-answer VoiceBench sd-qa samples and two open-ended ones (which the stage skips)."""
    path = tmp_path / "sd-qa.jsonl"
    path.write_text("\n".join(json.dumps({"prompt": q, "reference": a}) for q, a in QUESTIONS))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    open_ended = tmp_path / "commoneval.jsonl"
    open_ended.write_text('{"prompt": "Tell me about your day."}\n{"prompt": "Describe a sunset."}\n')
    import_benchmark(fmt="voicebench", subset="commoneval", path=open_ended)
    from apps.sources.models import SourceSample

    return list(SourceSample.objects.filter(subset="sd-qa").order_by("pk"))


@pytest.fixture
def script_agents(fake_llm):
    """script_agents(flag={"Switzerland": {...proposal...}}, meta="confirm"): the reviewer proposes the given
    corrections for transcriptions containing a key and confirms every other answer; the meta-reviewer gives
    `meta` (a verdict string, or a callable body -> dict)."""

    def script(flag: dict | None = None, meta="confirm"):
        flag = flag or {}

        def reviewer(body):
            text = prompt_text(body)
            for needle, proposal in flag.items():
                if needle in text:
                    return {"verdict": "error", "rationale": f"The answer to the {needle} question is wrong.", **proposal}
            return {"verdict": "correct", "rationale": "The answer follows from the question."}

        def meta_reviewer(body):
            if callable(meta):
                return meta(body)
            return {"verdict": meta, "rationale": f"Meta-reviewer says {meta}."}

        fake_llm.reply_when(is_reviewer, reviewer)
        fake_llm.reply_when(is_meta, meta_reviewer)
        return fake_llm

    return script
