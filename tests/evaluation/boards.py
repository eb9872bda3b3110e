"""Helpers for the leaderboard, compare and export tests: runs with stored SubsetScore rows (as the evaluation
leaves them) for English source benchmarks, Korean releases whose items point at the English source samples, and
KMMAU releases; seed 000's Tables 5 and 6 as data."""

from apps.evaluation.models import EvalItem, EvaluatedModel, EvaluationRun, ItemScore, SubsetScore

MODELS = ["Raon-Speech", "Qwen2.5-Omni", "Audio Flamingo3", "Step-Audio 2 Mini", "Interactive Omni", "Fun-Audio Chat",
          "HyperCLOVA X 8B Omni", "MiniCPM-o 4.5"]

# Seed 000 Table 5 (subset key -> English row, Korean row) and Table 1's benchmark rows, as printed.
TABLE5 = {
    "openbookqa": ([86.2, 83.3, 62.4, 77.1, 76.5, 81.8, 29.0, 87.7], [74.8, 31.0, 6.5, 7.4, 7.4, 28.3, 27.4, 25.2]),
    "mmsu": ([67.5, 56.3, 48.6, 54.5, 58.7, 65.3, 30.1, 66.7], [55.5, 28.3, 10.0, 11.7, 7.0, 28.7, 24.0, 26.9]),
    "bbh": ([85.1, 52.9, 29.2, 45.9, 39.7, 67.7, 37.9, 55.0], [83.5, 49.9, 36.3, 40.3, 8.3, 52.3, 52.7, 59.1]),
    "llama_questions": ([81.3, 77.0, 69.0, 72.3, 78.0, 80.7, 76.7, 80.7], [62.7, 47.9, 11.3, 35.9, 9.5, 51.8, 60.2, 38.4]),
    "trivia_qa": ([62.0, 58.5, 28.5, 52.3, 57.1, 67.3, 44.3, 68.7], [35.5, 18.0, 4.5, 17.4, 3.6, 23.7, 26.9, 22.7]),
    "web_questions": ([60.1, 59.0, 21.8, 52.4, 54.6, 62.2, 45.6, 65.9], [45.3, 35.1, 5.3, 27.3, 5.9, 35.4, 38.5, 30.0]),
    "sd-qa": ([60.9, 54.1, 38.2, 36.4, 43.6, 61.7, 42.7, 68.4], [44.8, 28.0, 7.5, 23.3, 5.6, 32.1, 29.1, 24.8]),
    "alpacaeval": ([77.4, 72.4, 36.2, 60.6, 77.0, 79.4, 63.2, 84.0], [65.0, 56.0, 29.4, 43.4, 26.8, 61.4, 54.8, 51.6]),
    "commoneval": ([69.2, 68.0, 50.4, 32.4, 70.0, 68.6, 62.4, 71.8], [57.4, 58.8, 27.2, 32.4, 22.8, 56.8, 54.2, 43.6]),
    "wildvoice": ([70.0, 62.6, 42.6, 41.8, 63.2, 66.6, 51.8, 71.6], [59.6, 50.6, 26.0, 35.2, 23.0, 53.4, 48.0, 41.0]),
    "ifeval": ([78.1, 51.4, 18.1, 47.5, 45.1, 76.6, 35.4, 80.6], [71.6, 42.9, 20.8, 30.4, 10.7, 53.4, 32.6, 34.6]),
    "advbench": ([96.7, 99.4, 48.7, 56.2, 87.9, 95.2, 85.8, 98.9], [87.3, 95.9, 5.7, 64.3, 68.0, 84.8, 83.2, 48.5]),
}
TABLE1 = {
    "VoiceBench": [76.8, 66.7, 41.6, 50.3, 62.4, 73.6, 48.7, 76.1],
    "OpenAudioBench": [70.2, 66.7, 38.9, 59.6, 66.7, 72.4, 57.4, 74.8],
    "KVoiceBench": [66.6, 49.0, 18.8, 32.0, 20.0, 50.1, 45.1, 39.5],
    "KOpenAudioBench": [52.1, 39.2, 12.6, 31.0, 11.5, 43.1, 45.1, 35.7],
    "KMMAU": [71.8, 62.9, 45.2, 64.8, 30.7, 70.4, 31.6, 62.9],
}
# Seed 000 Table 6 (capability -> row).
TABLE6 = {
    "age": [62.0, 41.3, 21.0, 52.2, 29.0, 47.5, 21.0, 51.8],
    "gender": [93.7, 98.9, 57.0, 88.9, 46.3, 87.8, 30.0, 91.1],
    "num_speakers": [30.0, 29.0, 26.0, 28.0, 23.0, 33.0, 21.0, 36.0],
    "word_order": [98.7, 80.4, 54.1, 94.0, 52.6, 74.1, 15.0, 54.3],
    "word_frequency": [42.8, 34.4, 13.9, 25.6, 21.1, 42.2, 18.9, 26.1],
    "fact_extraction": [86.9, 81.8, 59.6, 79.8, 33.3, 91.9, 36.4, 88.9],
    "topic_summary": [92.0, 82.0, 72.0, 91.0, 32.0, 96.0, 69.0, 98.0],
    "role_profession": [75.0, 80.0, 69.0, 83.0, 14.0, 92.0, 44.0, 78.0],
    "general_counting": [65.4, 38.5, 34.6, 40.4, 25.0, 69.2, 28.8, 42.3],
}
VOICEBENCH_KEYS = ["alpacaeval", "commoneval", "wildvoice", "sd-qa", "mmsu", "openbookqa", "bbh", "ifeval", "advbench"]
OPENAUDIOBENCH_KEYS = {"llama_questions": "llama_questions", "trivia_qa": "trivia_qa", "web_questions": "web_questions",
                       "alpaca_eval": "alpacaeval"}  # OpenAudioBench's AlpacaEval row is Table 5's AlpacaEval


def model(name: str, version: str = "", **kwargs) -> EvaluatedModel:
    return EvaluatedModel.objects.get_or_create(name=name, version=version, defaults=kwargs)[0]


def source_benchmark(name: str, fmt: str):
    from apps.sources.models import SourceBenchmark

    return SourceBenchmark.objects.get_or_create(name=name, defaults={"format": fmt})[0]


def release(name: str, kind: str, admin, version: str = "1.0.0"):
    from apps.releases.models import Release

    return Release.objects.get_or_create(name=name, version=version, defaults={
        "kind": kind, "license": "CC-BY-4.0", "status": "built", "built_by": admin})[0]


def run_with_scores(m: EvaluatedModel, scores: dict[str, tuple[float, int]], *, benchmark=None, korean_of=None,
                    kmmau=None, metric: str = "mcq") -> EvaluationRun:
    """A run of `m` with one stored primary SubsetScore per subset, and what create_run stores of its benchmark.
    `benchmark`: an English source benchmark;
    `korean_of`: (Korean release, its English source benchmark), the run's items linked to the source's samples;
    `kmmau`: a KMMAU release."""
    from apps.sources.models import SourceSample

    if benchmark is not None:
        run = EvaluationRun.objects.create(model=m, source_benchmark=benchmark, english_source=benchmark,
                                           kind=benchmark.format, benchmark_name=benchmark.name, family="spoken-qa",
                                           language="en")
    elif korean_of is not None:
        rel, source = korean_of
        run = EvaluationRun.objects.create(model=m, release=rel, english_source=source, kind=source.format,
                                           benchmark_name=rel.name, family="spoken-qa", language="ko")
        sample = SourceSample.objects.get_or_create(benchmark=source, subset="x", source_id="anchor", defaults={
            "task_type": "short_answer", "transcription": "anchor", "raw": {}, "line_number": 1})[0]
        EvalItem.objects.create(run=run, item_id="x/anchor", subset="x", metric="qa", question="q", source_sample=sample)
    else:
        run = EvaluationRun.objects.create(model=m, release=kmmau, kind="kmmau", benchmark_name=kmmau.name,
                                           family="kmmau", language="ko")
    for subset, (score, n) in scores.items():
        SubsetScore.objects.create(run=run, subset=subset, metric=metric, method="rule", score=score, n=n, primary=True)
    EvaluationRun.objects.filter(pk=run.pk).update(state="evaluated")
    return run


def paper_board(admin, *, models=MODELS):
    """The eight models of seed 000 on VoiceBench, OpenAudioBench, their Korean releases and KMMAU, each subset
    scored as Table 5 and Table 6 print it (n = 100 each)."""
    vb, oab = source_benchmark("voicebench", "voicebench"), source_benchmark("openaudiobench", "openaudiobench")
    kvb, koab = release("kvoicebench", "spoken-qa", admin), release("kopenaudiobench", "spoken-qa", admin)
    kmmau = release("kmmau", "kmmau", admin)
    runs = {}
    for i, name in enumerate(models):
        m = model(name)
        runs[(name, "voicebench")] = run_with_scores(m, {k: (TABLE5[k][0][i], 100) for k in VOICEBENCH_KEYS}, benchmark=vb)
        runs[(name, "openaudiobench")] = run_with_scores(
            m, {k: (TABLE5[t][0][i], 100) for k, t in OPENAUDIOBENCH_KEYS.items()}, benchmark=oab)
        runs[(name, "kvoicebench")] = run_with_scores(m, {k: (TABLE5[k][1][i], 100) for k in VOICEBENCH_KEYS},
                                                      korean_of=(kvb, vb))
        runs[(name, "kopenaudiobench")] = run_with_scores(
            m, {k: (TABLE5[t][1][i], 100) for k, t in OPENAUDIOBENCH_KEYS.items()}, korean_of=(koab, oab))
        runs[(name, "kmmau")] = run_with_scores(m, {k: (TABLE6[k][i], 100) for k in TABLE6}, kmmau=kmmau, metric="kmmau")
    return runs


def scored_items(run: EvaluationRun, subset: str, scores: list[float | None], *, method: str = "rule",
                 metric: str = "mcq", prefix: str = "") -> None:
    """Items `<subset>/<prefix><n>` with a response and an ItemScore each (0..1; None stays unscored)."""
    for n, score in enumerate(scores):
        item = EvalItem.objects.create(run=run, item_id=f"{subset}/{prefix}{n}", subset=subset, metric=metric,
                                       question=f"question {n}", answer="B", response=f"answer {n}")
        ItemScore.objects.create(item=item, method=method, profile="sori" if method == "rule" else "", score=score,
                                 evaluator="test", version="1")
