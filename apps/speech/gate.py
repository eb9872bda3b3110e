"""The ASR check (no ORM): character error rate of what the ASR heard against the text that was
synthesized, with jiwer. Before comparing, both sides are

1. NFC-normalized (Hangul syllables composed, so 가 typed as two jamo equals 가),
2. stripped of every punctuation character (Unicode category P*: . , ? ! · " ' ( ) and the like),
3. stripped of all whitespace (Korean spacing varies between writers and ASR models),

and the ASR side is first passed through the normalization stage's normalizer (`normalize_transcript`),
since an ASR writes numerals and symbols (3개, 25%) that the normalized text spells out (세 개, 이십오 퍼센트).
CER = (substitutions + deletions + insertions) / characters of the reference. The word error rate that the
paper used is computed on the same text with spaces kept (steps 1-2 only), and stored beside it."""

import unicodedata
from dataclasses import dataclass

import jiwer


def normalize_transcript(text: str) -> str:
    """Hook: the ASR transcript through the normalization stage's rules. apps.transfer does not expose a
    text-in, text-out normalizer yet, so this returns the text unchanged until it does."""
    return text


def _strip_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def prepare_words(text: str) -> str:
    return " ".join(_strip_punctuation(unicodedata.normalize("NFC", text)).split())


def prepare_chars(text: str) -> str:
    return "".join(prepare_words(text).split())


@dataclass
class GateResult:
    reference: str  # as compared
    hypothesis: str
    cer: float
    wer: float
    passed: bool
    diff: list[tuple[str, str, str]]  # (op, reference chars, hypothesis chars): equal/substitute/delete/insert


def check(*, text: str, transcript: str, threshold: float, normalize=None) -> GateResult:
    """`normalize` reads the transcript the way the normalization stage read the text (the sample's
    normalization rulebook version); without one, `normalize_transcript`."""
    hypothesis_text = (normalize or normalize_transcript)(transcript)
    reference, hypothesis = prepare_chars(text), prepare_chars(hypothesis_text)
    if not reference:
        raise ValueError("the text to compare is empty after removing punctuation and spaces")
    if not hypothesis:
        return GateResult(reference, hypothesis, 1.0, 1.0, 1.0 <= threshold, [("delete", reference, "")])
    chars = jiwer.process_characters(reference, hypothesis)
    ref_words, hyp_words = prepare_words(text), prepare_words(hypothesis_text)
    wer = jiwer.wer(ref_words, hyp_words)
    return GateResult(reference, hypothesis, float(chars.cer), float(wer), chars.cer <= threshold,
                      _diff(chars, reference, hypothesis))


def _diff(output, reference: str, hypothesis: str) -> list[tuple[str, str, str]]:
    ops = []
    for chunk in output.alignments[0]:
        ops.append((chunk.type, reference[chunk.ref_start_idx:chunk.ref_end_idx],
                    hypothesis[chunk.hyp_start_idx:chunk.hyp_end_idx]))
    return ops
