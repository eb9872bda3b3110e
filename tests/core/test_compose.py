import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def compose_command() -> list[str] | None:
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_docker_compose_accepts_the_file_with_the_example_env(tmp_path):
    command = compose_command()
    if command is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    project = tmp_path / "sori"
    project.mkdir()
    for name in ["docker-compose.yml", "Dockerfile"]:
        (project / name).write_text((ROOT / name).read_text())
    (project / ".env").write_text((ROOT / ".env.example").read_text())
    result = subprocess.run([*command, "config"], cwd=project, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for service in ["postgres:", "redis:", "web:", "worker:", "speech-worker:", "beat:"]:
        assert service in result.stdout
    assert "media:" in result.stdout
