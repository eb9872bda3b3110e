"""A copy of the matching and scoring logic of MMAU's public evaluation.py (github.com/Sakshi113/MMAU),
written here from its published behaviour so the export test can prove the file is scored unchanged.
Kept apart from Sori's own scorer on purpose: this one must fail the way the original fails.

- string_match: the answer's and the prediction's lower-cased `\\b\\w+\\b` token sets; correct when every
  answer token is in the prediction and the prediction has none of the tokens that only wrong choices have.
- the main loop skips samples without `model_output` (counted as "no prediction"), buckets by `task` in
  {sound, music, speech} and `difficulty` in {easy, hard, medium} (any other value raises KeyError), and
  keeps per `sub-category` counts."""

import re


def string_match(answer, prediction, choices):
    def tokenize(text):
        return set(re.findall(r"\b\w+\b", text.lower()))

    prediction_tokens = tokenize(prediction)
    answer_tokens = tokenize(answer)
    if not prediction_tokens:
        return False
    incorrect_tokens = set()
    for choice in choices:
        choice_tokens = tokenize(choice)
        if choice_tokens != answer_tokens:
            incorrect_tokens.update(choice_tokens - answer_tokens)
    cond1 = answer_tokens.issubset(prediction_tokens)
    cond2 = prediction_tokens.isdisjoint(incorrect_tokens)
    return cond1 and cond2


def evaluate(input_data, output_key="model_output"):
    corr, total = 0, 0
    task_metrics = {"sound": [0, 0], "music": [0, 0], "speech": [0, 0]}
    diff_metrics = {"easy": [0, 0], "hard": [0, 0], "medium": [0, 0]}
    subcat_metrics = {}
    no_pred_count = 0
    for sample in input_data:
        if output_key not in sample:
            no_pred_count += 1
            continue
        prediction = sample[output_key]
        answer = sample["answer"]
        task = sample["task"]
        difficulty = sample["difficulty"]
        choices = sample["choices"]
        subcat = sample.get("sub-category", None)
        if subcat is not None and subcat not in subcat_metrics:
            subcat_metrics[subcat] = [0, 0]
        if string_match(answer, prediction, choices):
            task_metrics[task][0] += 1
            diff_metrics[difficulty][0] += 1
            if subcat is not None:
                subcat_metrics[subcat][0] += 1
            corr += 1
        total += 1
        task_metrics[task][1] += 1
        diff_metrics[difficulty][1] += 1
        if subcat is not None:
            subcat_metrics[subcat][1] += 1
    return {"total_accuracy": corr / total * 100 if total else 0, "total": total, "no_pred": no_pred_count,
            "task": task_metrics, "difficulty": diff_metrics, "subcat": subcat_metrics}
