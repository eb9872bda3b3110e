"""IFEval's instruction checkers, vendored: `instructions.py`, `instructions_registry.py` and
`instructions_util.py` as if-verifiable 0.1.2 ships them (its `if_verifiable/ifeval/`, from Google
Research's instruction_following_eval), unchanged except their imports of each other
and of nltk (`lazy.nltk`: loaded on first use, not on import); `loose.py` is
if-verifiable's `get_loose_transformations` (its `common.py`). Apache License 2.0: see LICENSE here; the
copyright headers are kept in each file.

Why vendored: importing `if_verifiable.ifeval` runs the package's `__init__`, which imports `datasets`
(pyarrow, pandas, fsspec...) for a data loader Sori never uses, so the scorer took seconds to import.
These modules need only langdetect, nltk and immutabledict, which pyproject declares.

Not linted (pyproject's ruff exclude): kept byte for byte, so a diff against upstream stays readable."""
