"""One module writes a run's status (apps.evaluation.status): no other module of the project that touches
EvaluationRun assigns its stored `state` (or `status`, its old name) or passes it to an update or create."""

import ast
from pathlib import Path

APPS = Path(__file__).resolve().parents[2] / "apps"
WRITES = {"update", "create", "get_or_create", "update_or_create", "bulk_update", "bulk_create"}
FIELDS = {"state", "status"}


def _status_writes(path: Path, root: Path = APPS) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES:
            if any(k.arg in FIELDS for k in node.keywords):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in FIELDS:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_only_the_status_module_writes_a_runs_status():
    writers = [place for path in sorted(APPS.rglob("*.py")) if "migrations" not in path.parts
               and "EvaluationRun" in path.read_text(encoding="utf-8")
               for place in _status_writes(path)]
    assert writers and {place.split(":")[0] for place in writers} == {"evaluation/status.py"}, writers


def test_the_check_sees_a_status_written_elsewhere(tmp_path):
    module = tmp_path / "old.py"
    module.write_text("EvaluationRun.objects.filter(pk=1).update(status='evaluated')\nrun.status = 'ready'\n"
                      "EvaluationRun.objects.filter(pk=1).update(state='evaluated')\nrun.state = 'ready'\n")
    assert len(_status_writes(module, tmp_path)) == 4
