"""Agreement between annotators on approve/reject.

Fleiss' kappa is computed by `fleiss_kappa` below (our own small function, checked in the tests against the
worked example of Fleiss (1971) as reproduced on Wikipedia, kappa = 0.210); statsmodels is not a dependency
of Sori. Nominal Krippendorff's alpha comes from the `krippendorff` package."""

import math

import numpy as np


def fleiss_kappa(counts: list[list[int]]) -> float | None:
    """counts[i][j]: how many raters put subject i in category j; every subject has the same number of
    raters (at least 2). None when it is undefined (no subjects, or all ratings in one category)."""
    table = np.asarray(counts, dtype=float)
    if table.ndim != 2 or table.shape[0] == 0:
        return None
    raters = table.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("every subject needs the same number of raters, at least two")
    n, total = raters[0], table.sum()
    p_j = table.sum(axis=0) / total
    p_i = (np.square(table).sum(axis=1) - n) / (n * (n - 1))
    p_bar, p_e = p_i.mean(), np.square(p_j).sum()
    if math.isclose(p_e, 1.0):
        return None
    return float((p_bar - p_e) / (1 - p_e))


def krippendorff_nominal_counts(counts) -> float | None:
    """counts: units x categories, how many raters put the unit in each category (the package's
    `value_counts`): nominal alpha, None where it is undefined (no unit with two ratings, one category)."""
    import krippendorff  # here: start-up stays free of it (tests/core/test_startup.py)

    table = np.asarray(counts, dtype=float)
    if table.size == 0 or table.ndim != 2:
        return None
    # The package refuses data in which no unit has two ratings ("not enough overlapping reviews"): alpha
    # is undefined there, not an error.
    if not np.any(table.sum(axis=1) >= 2):
        return None
    used = table[:, table.sum(axis=0) > 0]  # the categories that occur, as the matrix's unique values are
    if used.shape[1] < 2:
        return None
    return float(krippendorff.alpha(value_counts=used, level_of_measurement="nominal"))
