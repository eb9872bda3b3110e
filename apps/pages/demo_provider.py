"""The scripted demo provider: the project's fake provider server (apps/agents/fake_server.py) on
127.0.0.1, answering every agent stage of the demo with recorded answers, so a new admin can run
ground-truth review, analysis, questions and codification, KMMAU question writing, translation and the
normalizer agent's readings without an API key.

`./scripts/demo` starts it (`manage.py demo_provider`) only when no provider key is set, points the SDKs at
it through their own variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL and dummy keys) and sets
SORI_DEMO_PROVIDER=1 so every agent page says "demo answers, not a real model". Real keys replace it with
nothing else changed: the app calls the SDKs the same way.

Answers are chosen by the schema the request asks for (its title is in the system prompt): recorded
answers for the demo data (demo_answers.json, matched on the request's text: the demo samples' phrases, the
rulebook, the question and the decision), else a valid default that says it is a demo answer and names the
samples it is about. What the demo shows is data in that file; this module only picks from it and fills in
what the data cannot know in advance (sample ids, whether a rule id exists yet)."""

import hashlib
import json
import re
from functools import cache
from pathlib import Path

from django.conf import settings

DEMO_LABEL = "demo answers, not a real model"
ANSWERS_FILE = Path(__file__).with_name("demo_answers.json")


@cache
def recorded() -> dict:
    return json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))


def answer(body: dict) -> dict:
    """The demo answer to one provider request (Anthropic Messages or OpenAI Chat Completions body)."""
    system, user = _texts(body)
    schema = _schema_title(system)
    if schema == "QuestionsAnswer":
        return _questions(user)
    if schema == "TranslatorAnswer":
        return _translation(user)
    if schema == "NormalizerAnswer":
        return _readings(user)
    entry = next((e for e in recorded().get(schema, []) if _fits(e, user)), None)
    if entry is None:
        return _default(schema, user)
    if schema == "DraftedRule":
        return _as_change_of_existing(entry["answer"], user)
    return entry["answer"]


def _fits(entry: dict, text: str) -> bool:
    """Every string of the entry's `contains` (one string or a list) is in the request text, and its `sample`
    phrase, if any, in the transcription of the sample an analysis is asked about (not anywhere in the text:
    a rule's examples may quote another sample)."""
    wanted = entry.get("contains", [])
    lowered = text.lower()
    if not all(part.lower() in lowered for part in ([wanted] if isinstance(wanted, str) else wanted)):
        return False
    if "sample" not in entry:
        return True
    sample = _json_after(text, "The sample:")
    return isinstance(sample, dict) and entry["sample"].lower() in str(sample.get("transcription", "")).lower()


def _questions(user: str) -> dict:
    """The recorded questions whose phrases pick some of the undecided samples (their ids filled in), one
    default question for the undecided samples none of them settles, at most as many as the prompt allows."""
    left = [s for s in (_json_after(user, "Undecided samples") or []) if isinstance(s, dict) and "id" in s]
    questions = []
    for entry in recorded().get("QuestionsAnswer", []):
        if not _fits(entry, user):
            continue
        phrases = [p.lower() for p in entry["samples"]]
        ids = [s["id"] for s in left if any(p in str(s.get("transcription", "")).lower() for p in phrases)]
        if ids:
            questions.append({**entry["question"], "sample_ids": ids, "example_sample_ids": ids[:3]})
            left = [s for s in left if s["id"] not in ids]
    if left:
        questions.append(_default_question(left))
    at_most = re.search(r"write at most (\d+) questions", user)
    return {"questions": questions[: int(at_most.group(1))] if at_most else questions}


def _translation(user: str) -> dict:
    """The recorded translation of the sample asked about (matched on its English transcription), else an
    undecided answer that says no translation is recorded for it (an expert is asked, as for a real one)."""
    sample = _json_after(user, "The sample (answer and aliases") or {}
    text = " ".join(str(sample.get("transcription", "")).lower().split())
    for entry in recorded().get("TranslatorAnswer", []):
        if " ".join(entry["transcription"].lower().split()) == text:
            return entry["answer"]
    return {"action": "undecided", "transcription_ko": "", "answer_ko": "", "aliases_ko": [], "rule_ids": [],
            "kept_terms": [], "reason": f"Demo answer ({DEMO_LABEL}): no translation is recorded for this sample; "
                                       "an expert decides how it is carried over."}


_SPAN_LINE = re.compile(r'^- (\d+): ("(?:[^"\\]|\\.)*") \((.*)\)$', re.MULTILINE)


def _readings(user: str) -> dict:
    """A reading for each context-dependent span the normalizer lists: the recorded one for the span (whose
    `contains`, if any, is in the sentence), else the first reading the rulebook version's tables allow for
    it (apps.transfer.normalizer.Normalizer.possible_readings, from the version's file under rulebooks/)."""
    readings = []
    for index, quoted, kind in _SPAN_LINE.findall(user):
        span = json.loads(quoted)
        entry = next((e for e in recorded().get("NormalizerAnswer", []) if e["span"] == span and _fits(e, user)), None)
        reading = entry["reading"] if entry else next(iter(_possible_readings(user, span, kind)), "")
        if reading:
            readings.append({"index": int(index), "reading": reading})
    return {"readings": readings}


def _possible_readings(user: str, span: str, kind: str) -> list[str]:
    version = re.search(r"Normalization rulebook (\S+) version (\d+)", user)
    engine = _engine(version.group(1), int(version.group(2))) if version else None
    return engine.possible_readings(span, kind) if engine else []


@cache
def _engine(slug: str, number: int):
    # Imported here: only a normalizer request needs the engine and the rulebook files.
    from apps.consultations.rulebook_files import discover, parse_file
    from apps.transfer.normalizer import Normalizer, Tables

    for path in discover(Path(settings.RULEBOOKS_DIR)):
        spec = parse_file(path)
        if spec.rulebook == slug and spec.version == number:
            return Normalizer(Tables([(rule.id, rule.data) for rule in spec.rules]))
    return None


def _as_change_of_existing(rule: dict, user: str) -> dict:
    """A recorded "add" of a rule a published version already has (the demo ran a round before) amends it."""
    existing = {r.get("id") for r in _json_after(user, "its rules:") or [] if isinstance(r, dict)}
    if rule["change"] == "add" and rule["rule_id"] in existing:
        return {**rule, "change": "amend"}
    return rule


def _texts(body: dict) -> tuple[str, str]:
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "\n".join(block.get("text", "") for block in system if isinstance(block, dict))
    user = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(block.get("text", "") for block in content if isinstance(block, dict))
        if message.get("role") == "system":
            system = f"{system}\n{content}"
        else:
            user.append(content or "")
    return system, "\n".join(user)


def _schema_title(system: str) -> str:
    # call_agent appends the JSON schema of the answer to the system prompt; its last top-level title names it.
    titles = re.findall(r'"title": "([A-Za-z]+)"', system)
    known = {"ReviewerAnswer", "MetaReviewerAnswer", "ConsultationAnalysis", "QuestionsAnswer", "DraftedRule",
             "_ProviderCheck", "JudgeScore", "JudgeVerdict", "WrittenQuestion", "TranslatorAnswer", "NormalizerAnswer"}
    for title in reversed(titles):
        if title in known:
            return title
    return titles[-1] if titles else ""


def _json_after(text: str, marker: str):
    """The JSON value that follows `marker` in a rendered prompt (prompts render lists with |json)."""
    at = text.find(marker)
    if at < 0:
        return None
    start = min((i for i in (text.find("[", at), text.find("{", at)) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError:
        return None


def _default_question(samples: list[dict]) -> dict:
    """A question about samples no recorded question fits, naming them as the expert will read them."""
    ids = [s["id"] for s in samples]
    quoted = ", ".join(f"\u2018{str(s.get('transcription', ''))[:80]}\u2019" for s in samples[:3])
    more = f" and {len(samples) - 3} more" if len(samples) > 3 else ""
    return {
        "title": f"How should {quoted if len(samples) == 1 else 'these samples'} be carried over?"[:300],
        "decision_needed": f"Demo question ({DEMO_LABEL}): the analyst could not settle {quoted}{more} under the "
                           "rulebook as it stands. Decide how they are carried over.",
        "options": [
            {"key": "A", "label": "Translate them directly", "effect": "Keep question and answer, translated."},
            {"key": "B", "label": "Leave them out", "effect": "Delete the samples from the Korean benchmark."},
        ],
        "recommendation": "A", "recommendation_why": "Most samples read naturally in Korean.",
        "sample_ids": ids, "example_sample_ids": ids[:3], "rules_touched": [],
    }


def _section(text: str, *headings: str) -> str:
    """The text under the first of `headings` (a '### ' line of the judge prompts) up to the next heading."""
    for heading in headings:
        found = re.search(rf"^### {re.escape(heading)}\s*\n(.*?)(?=^### |\n\n[^\n]*\?|\Z)", text, re.S | re.M)
        if found:
            return found.group(1).strip()
    return ""


def _demo_verdict(user: str) -> dict:
    """The demo judge of short answers (apps/evaluation/judge.py): Yes when the candidate answer contains the
    reference or one of its aliases (the prompt lists them as "a / b"), No otherwise: the rule-based match
    standing in for a model's judgement, so the demo's judge column is plausible without a key."""
    reference = _section(user, "Reference answer", "참조 답변")
    candidate = _section(user, "Candidate answer", "후보 답변").lower()
    accepted = [r.strip().lower() for r in reference.split(" / ") if r.strip()]
    return {"answer": "Yes" if any(r in candidate for r in accepted) else "No"}


def _demo_score(user: str) -> dict:
    """The demo judge of open-ended answers: 1 for an empty response, 2 for a very short one (under five words),
    4 otherwise; a stand-in for a model's 1-5 rating, marked as demo answers on the evaluation pages."""
    response = re.search(r"### \[Response\]:(.*?)(?:\n\n|\Z)", user, re.S)
    words = len(response.group(1).split()) if response else 0
    return {"score": 1 if words == 0 else 2 if words < 5 else 4}


def _default(schema: str, user: str) -> dict:
    if schema == "ReviewerAnswer":
        return {"verdict": "correct", "rationale": f"Demo answer ({DEMO_LABEL}): the answer is taken as right."}
    if schema == "MetaReviewerAnswer":
        return {"verdict": "unsure", "rationale": f"Demo answer ({DEMO_LABEL}): no recorded verdict for this sample."}
    if schema == "ConsultationAnalysis":
        return {"action": "undecided", "cited_rule_ids": [],
                "reason": f"Demo answer ({DEMO_LABEL}): the rulebook does not say how to carry this sample over."}
    if schema == "DraftedRule":
        rules = _json_after(user, "its rules:") or []
        existing = {r.get("id") for r in rules if isinstance(r, dict)}
        question = _json_after(user, "The question:") or {}
        digest = hashlib.sha256(json.dumps(question, sort_keys=True).encode()).hexdigest()[:8]
        rule_id = f"demo-decision-{digest}"
        while rule_id in existing:
            rule_id += "x"
        decision = re.search(r"The decision: (.*)", user)
        return {"change": "add", "rule_id": rule_id, "category": "demo",
                "statement": f"{question.get('title', 'Decision')}: {decision.group(1) if decision else 'as decided'} "
                             f"({DEMO_LABEL}).",
                "examples": [], "scope": {"task_types": [], "subsets": []}}
    if schema == "JudgeVerdict":
        return _demo_verdict(user)
    if schema == "JudgeScore":
        return _demo_score(user)
    if schema == "_ProviderCheck":
        word = re.search(r'"echo": "([^"]+)"', user)
        return {"ok": True, "echo": word.group(1) if word else "demo"}
    return {"note": DEMO_LABEL}
