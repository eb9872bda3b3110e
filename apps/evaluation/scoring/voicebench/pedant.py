"""PEDANT (zli12321/qa_metrics, MIT), as VoiceBench's qa evaluator calls it:
`PEDANT().evaluate([reference.lower()], response.lower(), prompt.lower())` with qa_metrics 0.2.17 (VoiceBench
requirements.txt), reimplemented so it loads without network, pickle or scikit-learn.

qa_metrics 0.2.17 downloads its classifier at every start (a TF-IDF vectoriser and an SGD logistic classifier,
scikit-learn 1.3.2 pickles) from the qa_metrics repository; data/voicebench_pedant.json.gz holds the same
numbers (tests/evaluation/voicebench_reference/convert_pedant.py made it; data/voicebench_pedant.LICENSE).

evaluate() with a list of references, step by step as qa_metrics does it:
1. references and the candidate are normalised (lower-case, ASCII punctuation removed, articles removed,
   whitespace collapsed; twice, as normalize_answer then remove_punctuation);
2. a reference contained in the candidate (as a substring) is a match: True;
3. otherwise each reference gives one classifier input: "[CLS] candidate [SEP] reference [SEP] question [SEP]"
   (the question through normalize_answer and contractions.fix) with three more features, the word-set F1,
   precision and recall of candidate against reference (both through contractions.fix);
4. True when the classifier predicts "correct" for any of them.

The arithmetic follows scikit-learn's own order (term counts times idf, the L2 norm summed in the order
scipy's sparse product leaves the row, the decision summed over columns in ascending order), so the decision
value is the same float, not only the same sign."""

import gzip
import json
import math
import re
import string
from collections import Counter
from functools import cache, lru_cache

import contractions
import regex

from apps.evaluation.scoring.result import DATA

MODEL_FILE = "voicebench_pedant.json.gz"

_ARTICLES = regex.compile(r"\b(a|an|the)\b")  # qa_metrics uses the regex module; its \b is not re's
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_PUNCTUATION_SET = set(string.punctuation)


class Model:
    """The vectoriser's vocabulary and idf, and the classifier's weights (one float per column)."""

    def __init__(self, data: dict):
        vectorizer, classifier = data["vectorizer"], data["classifier"]
        self.version = data["version"]
        self.token = re.compile(vectorizer["token_pattern"])
        self.column = {term: i for i, term in enumerate(vectorizer["terms"])}
        self.idf = vectorizer["idf"]
        self.coef = classifier["coef"]
        self.intercept = classifier["intercept"]
        self.classes = classifier["classes"]
        self.n_terms = len(self.idf)

    def decision(self, text: str, f1: float, precision: float, recall: float) -> float:
        """The classifier's decision value for one input; above 0 means classes[1] ("incorrect")."""
        counts = Counter(self.column[t] for t in self.token.findall(text.lower()) if t in self.column)
        # scipy's CSR product with the idf diagonal leaves a row's columns in descending order; the norm is
        # summed in that order (sklearn inplace_csr_row_normalize_l2).
        columns = sorted(counts, reverse=True)
        values = {c: counts[c] * self.idf[c] for c in columns}
        total = 0.0
        for c in columns:
            total += values[c] * values[c]
        norm = math.sqrt(total) if total != 0.0 else 0.0
        score = 0.0
        for c in reversed(columns):  # hstack and CSR conversion sort the columns ascending
            score += (values[c] / norm if norm else values[c]) * self.coef[c]
        for offset, extra in enumerate((f1, precision, recall)):
            if extra:  # a zero feature is not stored, so it adds nothing (not even -0.0)
                score += extra * self.coef[self.n_terms + offset]
        return score + self.intercept

    def predict(self, text: str, f1: float, precision: float, recall: float) -> str:
        return self.classes[1] if self.decision(text, f1, precision, recall) > 0 else self.classes[0]


@cache
def model() -> Model:
    with gzip.open(DATA / MODEL_FILE, "rt", encoding="utf-8") as f:
        return Model(json.load(f))


def version() -> str:
    return model().version


# --- qa_metrics.utils.tools, as 0.2.17 has them -----------------------------------------------------------
def _fix_answer(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION_SET)
    return " ".join(_ARTICLES.sub(" ", s).split())


def normalize_answer(text: str) -> str:
    text = str(text).lower().translate(_PUNCTUATION)
    return _fix_answer(" ".join(text.split()))


def remove_punctuation(text: str) -> str:
    return _fix_answer(text)


@lru_cache(maxsize=4096)
def _fixed(text: str) -> str:
    """contractions.fix, the slow step (the same question and reference come back for every model)."""
    return contractions.fix(text)


def f1_precision_recall(candidate: str, reference: str) -> tuple[float, float, float]:
    """calculate_f1_score_with_precision(candidate, reference): word sets after contractions.fix."""
    words_candidate = set(_fix_answer(_fixed(normalize_answer(candidate))).split())
    words_reference = set(_fix_answer(_fixed(normalize_answer(reference))).split())
    tp = len(words_candidate & words_reference)
    fp = len(words_candidate - words_reference)
    fn = len(words_reference - words_candidate)
    precision = tp / (tp + fp) if (tp + fp) > 0 else 0
    recall = tp / (tp + fn) if (tp + fn) > 0 else 0
    f1 = 2 * (precision * recall) / (precision + recall) if (precision + recall) > 0 else 0
    return f1, precision, recall


def evaluate(references: list[str], candidate: str, question: str) -> dict:
    """PEDANT.evaluate(references, candidate, question) for a list of references and one candidate.
    {"match": bool, "by": "reference in answer" | "classifier", "decisions": [float per reference]}."""
    refs = [remove_punctuation(normalize_answer(str(r))) for r in references]
    cand = remove_punctuation(normalize_answer(str(candidate)))
    for ref in refs:
        if ref in cand:  # qa_metrics returns before any classifier input is built
            return {"match": True, "by": "reference in answer", "decisions": []}
    question_text = _fixed(normalize_answer(str(question)))
    m = model()
    decisions = []
    for ref in refs:
        text = "[CLS] " + cand + " [SEP] " + ref + " [SEP] " + question_text + " [SEP]"
        decisions.append(m.decision(text, *f1_precision_recall(cand, ref)))
    # scikit-learn's binary predict: classes[1] where the decision is above 0, else classes[0].
    match = "correct" in [m.classes[1] if d > 0 else m.classes[0] for d in decisions]
    return {"match": match, "by": "classifier", "decisions": decisions}
