"""Speech requests go through the vendor transport under the speech settings' retry policy."""

from apps.agents.transport import TransientVendorError
from apps.speech import calls


def test_the_speech_policy_caps_a_servers_retry_after_like_its_backoff(settings):
    settings.SPEECH_MAX_HTTP_ATTEMPTS = 4
    settings.SPEECH_BACKOFF_BASE_SECONDS = 1.0
    settings.SPEECH_BACKOFF_MAX_SECONDS = 6.0
    policy = calls.policy()
    assert policy.attempts == 4
    assert policy.delay(0, TransientVendorError("429", retry_after=2.5)) == 2.5
    assert policy.delay(0, TransientVendorError("429", retry_after=90)) == 6.0
    assert all(1.0 <= policy.delay(1, TransientVendorError("503")) <= 2.0 for _ in range(20))  # ceiling 1 s * 2**1
    assert all(3.0 <= policy.delay(3, TransientVendorError("503")) <= 6.0 for _ in range(20))  # 8 s, capped at 6
