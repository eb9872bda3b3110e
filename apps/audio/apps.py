from django.apps import AppConfig


class AudioConfig(AppConfig):
    name = "apps.audio"
    label = "audio"
    verbose_name = "Audio assets"

    def ready(self):
        # Here, not at the top: they import models, which cannot load before the app registry is ready.
        from apps.audio import jobs, rules  # noqa: F401  (register the job handler and permission rules)

    def seed_demo(self, stdout):
        from apps.audio.demo import demo_asset  # imports models: not at the top of apps.py (see ready)

        for name, text in DEMO_SENTENCES:
            demo_asset(text, name=name)
        stdout.write(f"audio: {len(DEMO_SENTENCES)} Korean demo clips (espeak-ng)")


DEMO_SENTENCES = [
    ("demo-greeting.wav", "안녕하세요. 소리에 오신 것을 환영합니다."),
    ("demo-weather.wav", "오늘 서울의 날씨는 맑고 기온은 이십삼 도입니다."),
    ("demo-question.wav", "회의는 몇 시에 시작하나요?"),
]
