"""How the deterministic normalizer's time grows with the length of one text (issue 18: 4,000 digits took
8.4 s and 4,400 answered 500). Reads texts of 1,000 to 5,000 characters (the most it reads at once,
apps.transfer.normalizer.MAX_CHARS) of several shapes: one run of digits, a long decimal, numbers joined by
hyphens and commas, a long Latin word, Korean with a number at the end. Prints milliseconds per text and the
growth from the shortest to the longest (5x the length; about 5 is linear, about 25 quadratic).

    .venv/bin/python benchmarks/normalize_long.py [--repeat 3]
    .venv/bin/python benchmarks/normalize_long.py --smoke    # 100 and 500 characters, for CI

No database: the tables come straight from rulebooks/ko/normalization/v2.yaml.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHAPES = {
    "digits + counter": lambda n: "9" * (n - 1) + "개",
    "decimal": lambda n: "3." + "1" * (n - 2),
    "1-1-1-...": lambda n: "1-" * (n // 2),
    "1,1,1,...": lambda n: "1," * (n // 2),
    "Latin word": lambda n: "a" * n,
    "Korean + number": lambda n: "가" * (n - 1) + "1",
}
SIZES = (1000, 2000, 3000, 4000, 5000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="texts of 100 and 500 characters, once each (for CI)")
    args = parser.parse_args()
    sizes = (100, 500) if args.smoke else SIZES
    if args.smoke:
        args.repeat = 1
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")
    import django

    django.setup()
    from django.conf import settings

    from apps.consultations import rulebook_files
    from apps.transfer.normalizer import MAX_CHARS, Normalizer, Tables, validate

    spec = rulebook_files.parse_file(settings.RULEBOOKS_DIR / "ko" / "normalization" / "v2.yaml")
    engine = Normalizer(Tables([(rule.id, rule.data) for rule in spec.rules]))
    engine.normalize("3개")  # loads kiwipiepy's model
    print(f"{'shape':<18}" + "".join(f"{n:>9,}" for n in sizes) + "   growth (ms; at most "
          f"{MAX_CHARS:,} characters)")
    for name, make in SHAPES.items():
        times = []
        for size in sizes:
            text = make(size)
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                result = engine.normalize(text)
                validate(result.text, result.preserved)
                best = min(best, time.perf_counter() - start)
            times.append(best * 1000)
        print(f"{name:<18}" + "".join(f"{t:>9.1f}" for t in times) + f"   {times[-1] / max(times[0], 1e-3):>5.1f}x")


if __name__ == "__main__":
    main()
