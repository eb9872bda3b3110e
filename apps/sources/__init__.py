"""The source benchmarks: the English spoken-QA samples imported from VoiceBench and OpenAudioBench, the floor
under the transfer stages and the consultation loop (both read these samples; neither owns them).

- `models.py`: SourceBenchmark and SourceSample (their tables keep transfer's names: no data moved);
- `catalogue.py`: one row per subset (family, metric, task type, labels, table order); every list of
  subsets in Sori derives from it;
- `formats.py` (the readers), `services.py` (import_benchmark) and `source_audio.py` (their English audio).

Nothing here imports transfer, consultations, speech, releases or evaluation: they import this app.
"""
