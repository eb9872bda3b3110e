"""Prompt files and the retry policy's arithmetic."""

import pytest

from apps.agents.prompting import PromptError, available_versions, load_prompt
from apps.agents.transport import TransientVendorError, model_policy, retry_after_seconds


def write(folder, name, version, text):
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / f"v{version}.md").write_text(text)


def test_the_highest_version_is_used_unless_one_is_pinned(tmp_path):
    write(tmp_path, "greet", 1, "---\nversion: 1\ndescription: old\n---\nHello {{ name }}")
    write(tmp_path, "greet", 2, "---\nversion: 2\nsystem: Be brief about {{ name }}.\n---\nHi {{ name }} & {{ data|json }}")
    assert available_versions("greet", tmp_path) == [1, 2]

    latest = load_prompt("greet", base=tmp_path)
    system, user = latest.render({"name": "<Ann>", "data": {"a": 1}})
    assert latest.version == 2
    assert system == "Be brief about <Ann>."
    assert user == 'Hi <Ann> & {\n  "a": 1\n}'  # no HTML escaping in prompts
    assert load_prompt("greet", 1, base=tmp_path).render({"name": "Ann"})[1] == "Hello Ann"


def test_a_prompt_file_must_say_its_version(tmp_path):
    write(tmp_path, "bad", 1, "---\nversion: 3\n---\nx")
    with pytest.raises(PromptError, match="says version 3"):
        load_prompt("bad", base=tmp_path)
    write(tmp_path, "nofront", 1, "just text")
    with pytest.raises(PromptError, match="front matter"):
        load_prompt("nofront", base=tmp_path)
    with pytest.raises(PromptError, match="no version 9"):
        load_prompt("nofront", 9, base=tmp_path)
    with pytest.raises(PromptError, match="no prompt files"):
        load_prompt("missing", base=tmp_path)


def test_the_shipped_prompts_load():
    for name in ("provider_check", "ground_truth_review", "ground_truth_meta_review"):
        assert load_prompt(name).version >= 1


def test_backoff_grows_exponentially_with_jitter_up_to_the_cap(settings):
    settings.AGENTS_BACKOFF_BASE_SECONDS = 1.0
    settings.AGENTS_BACKOFF_MAX_SECONDS = 10.0
    policy = model_policy()
    for attempt, ceiling in [(0, 1), (1, 2), (2, 4), (3, 8), (6, 10)]:
        waits = {policy.backoff(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert len(waits) > 1  # jittered


def test_the_servers_retry_after_replaces_the_backoff_up_to_its_cap(settings):
    settings.AGENTS_RETRY_AFTER_MAX_SECONDS = 5.0
    policy = model_policy()
    assert policy.delay(0, TransientVendorError("429", retry_after=0.3)) == 0.3
    assert policy.delay(3, TransientVendorError("429", retry_after=90)) == 5.0


def test_retry_after_is_read_in_seconds_milliseconds_or_as_a_date():
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert 0 <= retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) < 1  # in the past: no wait
    assert retry_after_seconds({}) is None
