"""Spoken-QA benchmark transfer (seed 000, section 3.1), one folder per stage over the source benchmarks that
apps.sources imports (its import page stays here, at /transfer/import/):

- `ground_truth/`: the reviewer and meta-reviewer agents and the decisions on their corrections;
- `hypertranslation/`: translation runs under a pinned rulebook version;
- `normalization/`: normalization runs, with the deterministic engine in the package `normalizer/`;
- `selectors.py`: what each stage hands to the next and to the apps above (effective answers, current
  translations and normalized texts, what is ready for speech).

The stages' models stay in `models.py` (one app label, one migration history). Sources and consultations are
below this app: transfer pushes corrections for an expert into consultations, which reaches back only through
apps.consultations.hooks, which `apps.TransferConfig.ready` fills.
"""
