"""Scoring model answers on a KMMAU set (no database here), as seed 000 Appendix Table 6 reports them:
accuracy per capability, per category (acoustic, contextual) and the average over capabilities, beside a
random-guess baseline (1/2 for gender, 1/3 for age, 1/4 for the rest).

An answer is matched the way MMAU's evaluation.py matches it, so Sori's numbers and that script's agree:
the words of the correct choice (lower-cased \\w+ tokens) must all be in the prediction, and none of the
words that only wrong choices have. Predictions are read from `model_output` (MMAU's key) or
`model_prediction` (the key its README names)."""

from collections import defaultdict

from apps.authoring.capabilities import SPECS, Capability
from apps.authoring.validation import match_tokens

PREDICTION_KEYS = ("model_output", "model_prediction")


def matches(answer: str, prediction: str, choices: list[str]) -> bool:
    predicted = match_tokens(prediction or "")
    if not predicted:
        return False
    wanted = match_tokens(answer)
    wrong = set()
    for choice in choices:
        tokens = match_tokens(choice)
        if tokens != wanted:
            wrong |= tokens - wanted
    return wanted <= predicted and predicted.isdisjoint(wrong)


def prediction_of(record: dict) -> str | None:
    for key in PREDICTION_KEYS:
        if key in record and record[key] is not None:
            return str(record[key])
    return None


def score(rows: list[dict], predictions: dict[str, str]) -> dict:
    """rows: exported MMAU rows (with `capability`); predictions: {row id: model answer}. A row without a
    prediction counts as wrong and is counted in `missing`."""
    per_cap = defaultdict(lambda: [0, 0])
    missing = 0
    for row in rows:
        prediction = predictions.get(row["id"])
        if prediction is None:
            missing += 1
        cell = per_cap[row["capability"]]
        cell[1] += 1
        cell[0] += bool(prediction is not None and matches(row["answer"], prediction, row["choices"]))
    capabilities = {}
    for cap in SPECS:
        if cap in per_cap:
            correct, total = per_cap[cap]
            capabilities[str(cap)] = {
                "label": Capability(cap).label, "category": SPECS[cap].category, "correct": correct, "total": total,
                "accuracy": round(100 * correct / total, 1), "random": round(100 / SPECS[cap].options, 1),
            }
    categories = {}
    for category in ("Acoustic", "Contextual"):
        caps = [c for c in capabilities.values() if c["category"] == category]
        if caps:
            correct, total = sum(c["correct"] for c in caps), sum(c["total"] for c in caps)
            categories[category] = {"correct": correct, "total": total, "accuracy": round(100 * correct / total, 1),
                                    "random": round(sum(c["random"] * c["total"] for c in caps) / total, 1)}
    exact = [c["correct"] / c["total"] for c in capabilities.values()]
    average = round(100 * sum(exact) / len(exact), 1) if exact else None
    random_average = (round(sum(c["random"] for c in capabilities.values()) / len(capabilities), 1)
                      if capabilities else None)
    return {"capabilities": capabilities, "categories": categories, "average": average,
            "random_average": random_average, "questions": len(rows), "missing": missing}
