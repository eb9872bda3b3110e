# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg espeak-ng gettext \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY apps ./apps
COPY workers ./workers
RUN pip install --no-cache-dir ".[s3]"
COPY . .
# The Korean catalogue is compiled in the image (.mo files are not committed).
RUN DEBUG=0 SECRET_KEY=build-only-not-secret ALLOWED_HOSTS=build python manage.py compilemessages --verbosity 0
# The manifest storage used when DEBUG=0 needs the manifest written at build time.
RUN DEBUG=0 SECRET_KEY=build-only-not-secret ALLOWED_HOSTS=build python manage.py collectstatic --noinput
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
