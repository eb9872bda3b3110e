"""The scripted demo provider: the project's fake provider server (apps/agents/fake_server.py) on
127.0.0.1, answering every agent stage of the demo with recorded answers, so a new admin can run
ground-truth review, analysis, questions and codification without an API key.

`./scripts/demo` starts it (`manage.py demo_provider`) only when no provider key is set, points the SDKs at
it through their own variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL and dummy keys) and sets
SORI_DEMO_PROVIDER=1 so every agent page says "demo answers, not a real model". Real keys replace it with
nothing else changed: the app calls the SDKs the same way.

Answers are chosen by the schema the request asks for (its title is in the system prompt): recorded
answers for the demo data (demo_answers.json, matched on the request's text), else a valid default that
says it is a demo answer."""

import hashlib
import json
import re
from functools import cache
from pathlib import Path

DEMO_LABEL = "demo answers, not a real model"
ANSWERS_FILE = Path(__file__).with_name("demo_answers.json")


@cache
def recorded() -> dict:
    return json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))


def answer(body: dict) -> dict:
    """The demo answer to one provider request (Anthropic Messages or OpenAI Chat Completions body)."""
    system, user = _texts(body)
    schema = _schema_title(system)
    lowered = user.lower()
    for entry in recorded().get(schema, []):
        if entry["contains"].lower() in lowered:
            return entry["answer"]
    return _default(schema, user)


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
             "_ProviderCheck"}
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


def _default(schema: str, user: str) -> dict:
    if schema == "ReviewerAnswer":
        return {"verdict": "correct", "rationale": f"Demo answer ({DEMO_LABEL}): the answer is taken as right."}
    if schema == "MetaReviewerAnswer":
        return {"verdict": "unsure", "rationale": f"Demo answer ({DEMO_LABEL}): no recorded verdict for this sample."}
    if schema == "ConsultationAnalysis":
        return {"action": "undecided", "cited_rule_ids": [],
                "reason": f"Demo answer ({DEMO_LABEL}): the rulebook does not say how to carry this sample over."}
    if schema == "QuestionsAnswer":
        samples = _json_after(user, "Undecided samples") or []
        ids = [s["id"] for s in samples if isinstance(s, dict) and "id" in s]
        if not ids:
            return {"questions": []}
        return {"questions": [{
            "title": "How should these samples be carried over?",
            "decision_needed": f"Demo question ({DEMO_LABEL}): the analyst could not settle {len(ids)} sample(s).",
            "options": [
                {"key": "A", "label": "Translate them directly", "effect": "Keep question and answer, translated."},
                {"key": "B", "label": "Leave them out", "effect": "Delete the samples from the Korean benchmark."},
            ],
            "recommendation": "A", "recommendation_why": "Most samples read naturally in Korean.",
            "sample_ids": ids, "example_sample_ids": ids[:3], "rules_touched": [],
        }]}
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
    if schema == "_ProviderCheck":
        word = re.search(r'"echo": "([^"]+)"', user)
        return {"ok": True, "echo": word.group(1) if word else "demo"}
    return {"note": DEMO_LABEL}
