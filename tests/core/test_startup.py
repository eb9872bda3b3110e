"""Start-up imports only what every command needs (issue 20: manage.py check took 9-17 s on these machines,
5.5 s of it the anthropic SDK and 3.8 s scipy through pyloudnorm, which the command never uses)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Imported where first used: vendor SDKs, scipy (directly or through pyloudnorm), the Korean analyser,
# and what only evaluation's IFEval checkers need.
HEAVY = ["anthropic", "openai", "scipy", "pyloudnorm", "kiwipiepy", "krippendorff", "datasets", "nltk"]

PROBE = """
import json, sys
import django
from django.core.management import call_command
django.setup()
call_command("check", verbosity=0)
print(json.dumps(sorted(m for m in %r if m in sys.modules)))
"""


def test_manage_py_check_imports_no_sdk_scipy_or_kiwipiepy(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SORI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", PROBE % HEAVY], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_manage_py_check_runs_as_a_command(tmp_path):
    """As a person runs it: DRF loads the settings' classes while its own modules load, so an import circle
    through one of them (the pagination class once) shows here and not after django.setup()."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SORI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
