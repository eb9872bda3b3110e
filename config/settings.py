"""Sori settings: one module, every deployment value read from the environment through config.env, which
refuses bad values. The embedded default (no variables set) is SQLite under ./data and in-process jobs."""

import importlib.util
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("SORI_DATA_DIR") or BASE_DIR / "data")

DEBUG = env_bool("DEBUG", True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-key-never-use-in-production-sori-0123456789abcdefghijklmnop"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "axes",
    "apps.core",
    "apps.accounts",
    "apps.jobs",
    "apps.audio",
    # Workflow apps; each owns its models, services, pages, API, demo data and home-page panels.
    "apps.queues",
    "apps.agents",
    "apps.speech",
    "apps.sources",
    "apps.transfer",
    "apps.consultations",
    "apps.instructions",
    "apps.listening",
    "apps.verification",
    "apps.authoring",
    "apps.releases",
    "apps.evaluation",
    "apps.pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language from the language cookie or the browser's Accept-Language; a signed-in person's own setting
    # overrides it below (apps.accounts.middleware.UserLanguageMiddleware, after authentication).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "apps.accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Before any view middleware reads the body (CSRF reads request.POST): a body over its form's limit is
    # refused from its Content-Length, and the files of the rest are counted as they are read.
    "apps.core.uploads.UploadLimitMiddleware",
    # After HtmxMiddleware: a refusal escaping a page view is rendered with its status (bare text for htmx).
    "apps.core.middleware.ApplicationErrorMiddleware",
    # Last, as django-axes asks: it turns a lockout raised during authentication into a response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.accounts.context_processors.navigation",
                "apps.pages.context_processors.demo_provider",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------
DATABASE_URL = env_url(
    "DATABASE_URL",
    f"sqlite:///{DATA_DIR / 'sori.sqlite3'}",
    schemes=("sqlite", "postgres", "postgresql", "pgsql"),
)
if DATABASE_URL.startswith("sqlite:///"):
    Path(DATABASE_URL.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
# DB_CONN_MAX_AGE > 0 keeps a connection per server thread across requests (docker-compose sets 60): a new
# PostgreSQL connection per request costs more than a rating's queries. The health check reconnects after a
# database restart instead of failing the first request.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
                                             conn_health_checks=True)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and IMMEDIATE transactions let the in-process job thread write while pages are served.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The workers' hot-path statements are prepared once per PostgreSQL connection (apps/core/prepared.py);
# 0 behind a pooler in transaction mode (PgBouncer), which cannot keep them.
PREPARED_STATEMENTS = env_bool("SORI_PREPARED_STATEMENTS", True)
if PREPARED_STATEMENTS and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Lets psycopg prepare at all (Django turns it off); only that cursor asks, Django's own never can.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 1

# --- Broker, cache, background jobs ---------------------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", None, schemes=("redis", "rediss"))
CELERY_BROKER_URL = env_url("CELERY_BROKER_URL", REDIS_URL, schemes=("redis", "rediss", "amqp", "memory"))

# How a started job runs: "celery" (a worker over the broker), "thread" (in this process, for the embedded
# demo) or "sync" (inline, for tests and management commands that should block).
JOB_RUNNER = env_str("SORI_JOB_RUNNER") or ("celery" if CELERY_BROKER_URL else "thread")
if JOB_RUNNER not in {"celery", "thread", "sync"}:
    raise ImproperlyConfigured(f"SORI_JOB_RUNNER={JOB_RUNNER!r} must be celery, thread or sync")
if JOB_RUNNER == "celery" and not CELERY_BROKER_URL:
    raise ImproperlyConfigured("SORI_JOB_RUNNER=celery needs REDIS_URL or CELERY_BROKER_URL")

# A running job holds a lease that its worker renews (with every progress report, and every
# JOB_HEARTBEAT_SECONDS while one step runs long); a job whose lease ran out lost its worker and is taken
# over by the next worker to start, or by beat every JOB_RECLAIM_SECONDS, from its last saved point.
JOB_LEASE_SECONDS = env_int("SORI_JOB_LEASE_SECONDS", 120, minimum=2)
JOB_HEARTBEAT_SECONDS = max(1, JOB_LEASE_SECONDS // 4)
JOB_RECLAIM_SECONDS = env_int("SORI_JOB_RECLAIM_SECONDS", 60, minimum=1)

CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 6 * 3600, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 6 * 3600 - 60, minimum=1)
# Redis hands an unacknowledged message to another worker after the visibility timeout; below the longest
# job that would start a second copy of a job still running. Above it, a dead worker's message comes back
# late, finds its job finished (or claimed through the lease) and does nothing.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", CELERY_TASK_TIME_LIMIT + 3600, minimum=1)
}
if CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] <= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_VISIBILITY_TIMEOUT must be above CELERY_TASK_TIME_LIMIT (the longest job)")
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True

if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Accounts -------------------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Login throttling (django-axes): lock a username from one address after repeated failures.
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# The client address for the lockout is the one the API throttle uses (X-Forwarded-For only behind
# SORI_NUM_PROXIES proxies), so neither can be dodged by sending a made-up header.
AXES_CLIENT_IP_CALLABLE = "apps.accounts.api.client_ip"

# --- API ------------------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "apps.accounts.authentication.TokenAuthentication",  # the roles come with the user
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "apps.core.pagination.Pages",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "apps.core.schema.AutoSchema",
    # JSON nested past the recursion limit or with a 5,000-digit number is a 400, not a 500 (apps.core.api).
    "DEFAULT_PARSER_CLASSES": ["apps.core.api.JSONInput", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "EXCEPTION_HANDLER": "apps.core.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"token": "20/min"},
    # How many reverse proxies in front of Sori append to X-Forwarded-For. 0: the header is ignored and the
    # throttle counts by the connecting address, since anyone can send the header.
    "NUM_PROXIES": env_int("SORI_NUM_PROXIES", 0, minimum=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Sori API",
    "DESCRIPTION": "People and LLM agents building speech benchmarks and speech-quality datasets.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get their own components, so required text says minLength 1 and read-only fields drop out.
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.schema.forbid_nul_in_request_text",
    ],
    # <id:pk> (apps.core.converters) is an integer that fits a database id.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999}},
}

# --- Pages, static and media ----------------------------------------------------------------------------
# Sori's participants read Korean; English is there for those who choose it. LANGUAGE_CODE is only the
# fallback for a request that states no language at all (no cookie, no Accept-Language, nobody signed in).
LANGUAGE_CODE = "en"
LANGUAGES = [("ko", "한국어"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates in each language's own formats (config/formats/<lang>/formats.py), times in TIME_ZONE (KST in use).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
MEDIA_ROOT = Path(env_str("MEDIA_ROOT") or DATA_DIR / "media")
# The server folders an admin may name for an import by path (a source benchmark's audio). A folder is refused
# outside them after its links are resolved, so no request can make Sori read /proc, /etc or another user's files.
IMPORT_ROOTS = [Path(p).resolve() for p in env_list("SORI_IMPORT_ROOTS", [str(DATA_DIR / "imports")])]
MEDIA_URL = "/media-not-served/"  # media is only ever served through permission-checked views

# --- Audio ----------------------------------------------------------------------------------------------
AUDIO_MAX_BYTES = env_int("AUDIO_MAX_BYTES", 200 * 1024 * 1024, minimum=1)
# How often beat removes stored audio files no asset names and re-hashes every asset's file (audit_audio).
AUDIO_AUDIT_SECONDS = env_int("SORI_AUDIO_AUDIT_SECONDS", 24 * 3600, minimum=60)
# An uploaded zip (test bundle, media archive) may unpack to at most this many files and bytes.
ZIP_MAX_FILES = env_int("SORI_ZIP_MAX_FILES", 50_000, minimum=1)
ZIP_MAX_BYTES = env_int("SORI_ZIP_MAX_BYTES", 2 * 1024 * 1024 * 1024, minimum=1)  # four bundle uploads (below)
# ...and no member, nor the whole archive, may unpack past 1 MiB to more than this many times its compressed
# size (a zip bomb). Audio barely compresses and a manifest's text some 5-20x; zeros compress 1000x.
ZIP_MAX_RATIO = env_int("SORI_ZIP_MAX_RATIO", 100, minimum=1)

# --- Uploads (apps.core.uploads) ------------------------------------------------------------------------
# Each upload form names its kind (@upload_limit("bundle") on a view, upload_limit = "audio" on a ModelAdmin);
# a request body over its kind's limit is refused with 413 from its Content-Length, before a byte is read.
# Larger files go through the management commands, which read from disk. kind: (bytes, variable).
MiB = 1024 * 1024
UPLOAD_LIMITS = {
    # a zip of a manifest or corpus file and its audio: listening test, verification media, authoring corpus
    "bundle": (env_int("SORI_BUNDLE_UPLOAD_MAX_BYTES", 512 * MiB, minimum=1), "SORI_BUNDLE_UPLOAD_MAX_BYTES"),
    # a predictions table (a few columns per clip, item or question): listening, verification, authoring
    "table": (env_int("SORI_TABLE_UPLOAD_MAX_BYTES", 16 * MiB, minimum=1), "SORI_TABLE_UPLOAD_MAX_BYTES"),
    # one source benchmark subset file at /transfer/import/ (JSONL, CSV, or Parquet whose audio is skipped)
    "benchmark": (env_int("SORI_BENCHMARK_UPLOAD_MAX_BYTES", 64 * MiB, minimum=1), "SORI_BENCHMARK_UPLOAD_MAX_BYTES"),
    # a model's responses to a benchmark (apps.evaluation): up to ~10,000 items, an open-ended answer may run to
    # thousands of words (the paper's 4,096-token cap), so far more than a predictions table
    "responses": (env_int("SORI_RESPONSES_UPLOAD_MAX_BYTES", 128 * MiB, minimum=1), "SORI_RESPONSES_UPLOAD_MAX_BYTES"),
    # one audio file in the admin (an audio asset, a reference voice's clip)
    "audio": (env_int("SORI_AUDIO_UPLOAD_MAX_BYTES", 64 * MiB, minimum=1), "SORI_AUDIO_UPLOAD_MAX_BYTES"),
}
# Every other request (typed form fields, an API JSON body) and the text fields of an upload form: 1 MiB holds
# the longest typed text (10,000 characters) thirty times over, and a request over it is refused before it is
# read. Set through SORI_REQUEST_MAX_BYTES.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("SORI_REQUEST_MAX_BYTES", MiB, minimum=1)
# An uploaded file up to 2.5 MiB is held in memory, a larger one is spooled to a temporary file, so twelve
# threads receiving bundles at once hold tens of megabytes, not gigabytes (Django's default, kept on purpose).
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * MiB + MiB // 2

# --- Security (check --deploy is clean when DEBUG=0) ----------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    if env_bool("BEHIND_TLS_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Content-Security-Policy (django-csp) on every response: script, style, media and fetches from Sori's own
# origin only, so a page that lets one uploaded or typed value through still runs no code. No inline
# script: every behaviour is a static file (static/js, apps/*/static), htmx is told not to eval (the
# htmx-config meta tag in templates/base.html). style-src is 'self' too, without 'unsafe-inline': Sori's
# templates keep their styles in static CSS (no style="" attributes, no <style> blocks), and allowing inline
# styles would let injected markup restyle a page or leak attribute values through CSS selectors. Setting a
# style from a script (element.style.x = ...) is not inline style and stays allowed. data: images are
# allowed for the admin's and the API docs' icons; nothing may frame a Sori page (frame-ancestors).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "media-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
SILENCED_SYSTEM_CHECKS = env_list("SILENCED_SYSTEM_CHECKS", [])

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "axes": {"level": "WARNING"},
        # Django's defaults give "django" a console handler of its own (under DEBUG) as well as propagating
        # to root's: every request warning came out twice. Root alone prints it. ("django.server", the
        # runserver request lines, keeps Django's handler and does not propagate: printed once too.)
        "django": {"handlers": [], "level": "INFO", "propagate": True},
    },
}

# --- Workflow settings (one block per app below) --------------------------------------------------------

# --- agents ---------------------------------------------------------------------------------------------
# The only door to LLMs (apps.agents). Keys and endpoints are NOT read here: the official SDKs read their own
# variables (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL). Admins may override the
# provider and model of each role in the admin (RoleAssignment); these are the defaults, each overridable as
# SORI_AGENT_<ROLE>=provider:model, e.g. SORI_AGENT_REVIEWER=openai:gpt-4.1.
def _agent_default(role: str, default: str) -> tuple[str, str]:
    raw = env_str(f"SORI_AGENT_{role.upper()}", default)
    provider, sep, model = raw.partition(":")
    if not sep or provider not in {"anthropic", "openai"} or not model:
        raise ImproperlyConfigured(f"SORI_AGENT_{role.upper()}={raw!r} must be anthropic:<model> or openai:<model>")
    return provider, model


AGENTS_DEFAULT_ROLES = {
    # The paper's reviewer and meta-reviewer are different vendors' models; keep them different here too.
    "reviewer": _agent_default("reviewer", "openai:gpt-4.1"),
    "meta_reviewer": _agent_default("meta_reviewer", "anthropic:claude-sonnet-4-5"),
    "analyst": _agent_default("analyst", "anthropic:claude-sonnet-4-5"),
    "translator": _agent_default("translator", "anthropic:claude-sonnet-4-5"),
    "normalizer": _agent_default("normalizer", "openai:gpt-4.1-mini"),
    "question_writer": _agent_default("question_writer", "openai:gpt-4.1"),
    # Scores model answers in apps.evaluation (VoiceBench's judge prompts; the paper used a GPT model).
    "judge": _agent_default("judge", "openai:gpt-4.1"),
}

# US dollars per million tokens (list prices, checked by hand; update when vendors change them). A model
# missing here is logged with cost 0 and flagged "unpriced" on the call log, and budget caps cannot see it.
AGENTS_PRICES = {
    "anthropic:claude-opus-4-1": {"input": 15.00, "output": 75.00},
    "anthropic:claude-sonnet-4-5": {"input": 3.00, "output": 15.00},
    "anthropic:claude-haiku-4-5": {"input": 1.00, "output": 5.00},
    "openai:gpt-4.1": {"input": 2.00, "output": 8.00},
    "openai:gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "openai:gpt-4o": {"input": 2.50, "output": 10.00},
    "openai:gpt-4o-mini": {"input": 0.15, "output": 0.60},
}
_agent_prices_json = env_str("SORI_AGENT_PRICES_JSON")
if _agent_prices_json:
    import json as _json

    try:
        AGENTS_PRICES.update(_json.loads(_agent_prices_json))
    except ValueError as exc:
        raise ImproperlyConfigured(f"SORI_AGENT_PRICES_JSON is not valid JSON: {exc}") from None

# Set by ./scripts/demo when it runs the scripted demo provider (no API key): pages say the agents' answers
# are recorded demo answers, not a real model.
SORI_DEMO_PROVIDER = env_bool("SORI_DEMO_PROVIDER", False)
AGENTS_MAX_OUTPUT_TOKENS = env_int("SORI_AGENT_MAX_OUTPUT_TOKENS", 1024, minimum=16)
AGENTS_TIMEOUT_SECONDS = float(env_int("SORI_AGENT_TIMEOUT_SECONDS", 120, minimum=1))
# Our own retry policy (the SDKs' built-in retries are switched off so this is the only one).
AGENTS_MAX_ATTEMPTS = env_int("SORI_AGENT_MAX_ATTEMPTS", 6, minimum=1)
AGENTS_BACKOFF_BASE_SECONDS = float(env_int("SORI_AGENT_BACKOFF_BASE_MS", 1000, minimum=0)) / 1000
AGENTS_BACKOFF_MAX_SECONDS = float(env_int("SORI_AGENT_BACKOFF_MAX_MS", 60000, minimum=0)) / 1000
AGENTS_RETRY_AFTER_MAX_SECONDS = float(env_int("SORI_AGENT_RETRY_AFTER_MAX_MS", 120000, minimum=0)) / 1000
# At most this many requests in flight per provider, across processes when Redis is configured.
AGENTS_CONCURRENCY = {
    "anthropic": env_int("SORI_AGENT_CONCURRENCY_ANTHROPIC", 4, minimum=1),
    "openai": env_int("SORI_AGENT_CONCURRENCY_OPENAI", 4, minimum=1),
}
AGENTS_SLOT_LEASE_SECONDS = 300  # a crashed worker's slot frees itself after this long
# Default per-job budget cap in US dollars (a job's params["budget_usd"] overrides it).
AGENTS_JOB_BUDGET_USD = env_float("SORI_AGENT_JOB_BUDGET_USD", 25.0)

# --- transfer -------------------------------------------------------------------------------------------
# Samples the ground-truth job reviews at once (each in its own thread; the per-provider limit in
# AGENTS_CONCURRENCY still caps requests in flight). 1 reviews one sample at a time.
TRANSFER_REVIEW_WORKERS = env_int("SORI_TRANSFER_REVIEW_WORKERS", 4, minimum=1)
# The same for hypertranslation and normalization runs (normalization calls the agent only for the few
# context-dependent spans; the deterministic work is CPU-bound).
TRANSFER_TRANSLATE_WORKERS = env_int("SORI_TRANSFER_TRANSLATE_WORKERS", 4, minimum=1)
TRANSFER_NORMALIZE_WORKERS = env_int("SORI_TRANSFER_NORMALIZE_WORKERS", 2, minimum=1)

# --- queues ---------------------------------------------------------------------------------------------
# How long a claimed item stays reserved for its worker (a pool may override it).
QUEUE_LEASE_SECONDS = env_int("QUEUE_LEASE_SECONDS", 900, minimum=1)

# --- listening ---
# MOS listening tests (apps/listening). Five distinct listeners per clip as in KOMOS; QC thresholds follow
# the spirit of ITU-T P.808 (gold questions, straight-lining, agreement with the other listeners).


LISTENING_RATINGS_PER_CLIP = env_int("LISTENING_RATINGS_PER_CLIP", 5, minimum=1)
LISTENING_LEASE_SECONDS = env_int("LISTENING_LEASE_SECONDS", 900, minimum=10)
# A listener is flagged when they miss more gold clips than this.
LISTENING_QC_MAX_GOLD_MISSES = env_int("LISTENING_QC_MAX_GOLD_MISSES", 0, minimum=0)
# Sample variance of a listener's scores below this flags straight-lining (the same score for everything).
LISTENING_QC_MIN_VARIANCE = env_float("LISTENING_QC_MIN_VARIANCE", 0.25)
# Pearson r between a listener's scores and the other listeners' clip means below this flags them.
LISTENING_QC_MIN_CORRELATION = env_float("LISTENING_QC_MIN_CORRELATION", 0.3)
# The variance and correlation flags need at least this many rated regular clips to mean anything.
LISTENING_QC_MIN_RATINGS = env_int("LISTENING_QC_MIN_RATINGS", 8, minimum=2)
LISTENING_BOOTSTRAP_RESAMPLES = env_int("LISTENING_BOOTSTRAP_RESAMPLES", 10_000, minimum=100)
# A playback report must come at least the clip's duration minus this after the clip was served.
LISTENING_PLAYBACK_TOLERANCE_SECONDS = env_float("LISTENING_PLAYBACK_TOLERANCE_SECONDS", 0.5)

# --- consultations ---
# Rulebook files under version control (rulebooks/<language>/<kind>/v<N>.yaml and .md).
RULEBOOKS_DIR = Path(env_str("SORI_RULEBOOKS_DIR") or BASE_DIR / "rulebooks")
# The most decision questions one consultation round may raise (a round can set a lower number).
CONSULTATION_MAX_QUESTIONS = env_int("CONSULTATION_MAX_QUESTIONS", 10, minimum=1)
# How many affected samples a question shows in full.
CONSULTATION_EXAMPLES_PER_QUESTION = env_int("CONSULTATION_EXAMPLES_PER_QUESTION", 3, minimum=1)
# Samples the analysis job sends to the analyst at once (the paper ran six sub-agents; the per-provider limit
# in AGENTS_CONCURRENCY still caps requests in flight). 1 analyses one sample at a time.
CONSULTATION_ANALYSIS_WORKERS = env_int("CONSULTATION_ANALYSIS_WORKERS", 6, minimum=1)

# --- speech ---------------------------------------------------------------------------------------------
# TTS and ASR for the spoken-QA transfer (apps/speech). No model name is hard-coded: an OpenAI-compatible
# backend needs SORI_TTS_MODEL / SORI_ASR_MODEL. The TTS backend "openai" serves OpenAI itself and
# self-hosted servers (vLLM-Omni with Qwen3-TTS or CosyVoice3) by SORI_TTS_BASE_URL; "espeak" is offline.
def _speech_json(name: str) -> dict:
    raw = env_str(name)
    if not raw:
        return {}
    import json as _json

    try:
        value = _json.loads(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object")
    return value


SPEECH_TTS = {
    "backend": env_str("SORI_TTS_BACKEND", "espeak"),
    "base_url": env_str("SORI_TTS_BASE_URL") or None,
    "api_key": env_str("SORI_TTS_API_KEY") or env_str("OPENAI_API_KEY") or None,
    "model": env_str("SORI_TTS_MODEL") or None,
    # The `voice` sent when a reference voice names none (OpenAI presets; vLLM-Omni Base takes any label).
    "voice": env_str("SORI_TTS_VOICE") or None,
    "response_format": env_str("SORI_TTS_RESPONSE_FORMAT", "wav"),
    # Extra request fields, e.g. {"task_type": "Base", "language": "Korean"} for vLLM-Omni Qwen3-TTS.
    "extra_body": _speech_json("SORI_TTS_EXTRA_BODY_JSON"),
    # Send the reference voice's clip (ref_audio, base64 data URL) and exact transcript (ref_text).
    "send_reference": env_bool("SORI_TTS_SEND_REFERENCE", False),
    # The request field that carries the attempt's seed (e.g. "seed"); empty sends none.
    "seed_field": env_str("SORI_TTS_SEED_FIELD", ""),
    "timeout": float(env_int("SORI_TTS_TIMEOUT_SECONDS", 120, minimum=1)),
    "concurrency": env_int("SORI_TTS_CONCURRENCY", 4, minimum=1),
    "usd_per_million_chars": env_float("SORI_TTS_USD_PER_MILLION_CHARS", None),
}
if SPEECH_TTS["backend"] not in {"espeak", "openai"}:
    raise ImproperlyConfigured(f"SORI_TTS_BACKEND={SPEECH_TTS['backend']!r} must be espeak or openai")
SPEECH_ASR = {
    # "openai" covers OpenAI and OpenAI-compatible servers (faster-whisper servers, vLLM) by base URL.
    "backend": env_str("SORI_ASR_BACKEND", "openai"),
    "base_url": env_str("SORI_ASR_BASE_URL") or None,
    "api_key": env_str("SORI_ASR_API_KEY") or env_str("OPENAI_API_KEY") or None,
    "model": env_str("SORI_ASR_MODEL") or None,
    "language": env_str("SORI_ASR_LANGUAGE", "ko"),
    "timeout": float(env_int("SORI_ASR_TIMEOUT_SECONDS", 120, minimum=1)),
    "concurrency": env_int("SORI_ASR_CONCURRENCY", 4, minimum=1),
    "usd_per_minute": env_float("SORI_ASR_USD_PER_MINUTE", None),
}
if SPEECH_ASR["backend"] not in {"openai", "demo"}:
    # demo: the scripted demo ASR of ./scripts/demo (apps/speech/backends/demo_asr.py), not a real model
    raise ImproperlyConfigured(f"SORI_ASR_BACKEND={SPEECH_ASR['backend']!r} must be openai or demo")
SPEECH_MAX_HTTP_ATTEMPTS = env_int("SORI_SPEECH_MAX_HTTP_ATTEMPTS", 5, minimum=1)
SPEECH_BACKOFF_BASE_SECONDS = float(env_int("SORI_SPEECH_BACKOFF_BASE_MS", 1000, minimum=0)) / 1000
SPEECH_BACKOFF_MAX_SECONDS = float(env_int("SORI_SPEECH_BACKOFF_MAX_MS", 60000, minimum=0)) / 1000
# Run defaults (a run may set its own): the CER gate, attempts per sample, the pause between sentences,
# the asset's sample rate and the loudness target (EBU R128).
SPEECH_CER_THRESHOLD = env_float("SORI_SPEECH_CER_THRESHOLD", 0.1)
SPEECH_MAX_ATTEMPTS = env_int("SORI_SPEECH_MAX_ATTEMPTS", 3, minimum=1)
SPEECH_PAUSE_MS = env_int("SORI_SPEECH_PAUSE_MS", 300, minimum=0)
SPEECH_SAMPLE_RATE = env_int("SORI_SPEECH_SAMPLE_RATE", 24000, minimum=8000)
if SPEECH_SAMPLE_RATE not in {16000, 24000}:
    raise ImproperlyConfigured(f"SORI_SPEECH_SAMPLE_RATE={SPEECH_SAMPLE_RATE} must be 16000 or 24000")
SPEECH_TARGET_LUFS = env_float("SORI_SPEECH_TARGET_LUFS", -23.0)
# Samples a run synthesizes at once when it runs in-process (no Celery); with Celery the speech workers'
# concurrency decides.
SPEECH_WORKERS = env_int("SORI_SPEECH_WORKERS", 4, minimum=1)
# How samples are dispatched: "celery" (a task per sample on the `speech` queue) or "inline" (the job's
# own threads). Defaults to celery when jobs run on Celery.
SPEECH_DISPATCH = env_str("SORI_SPEECH_DISPATCH") or ("celery" if JOB_RUNNER == "celery" else "inline")
if SPEECH_DISPATCH not in {"celery", "inline"}:
    raise ImproperlyConfigured(f"SORI_SPEECH_DISPATCH={SPEECH_DISPATCH!r} must be celery or inline")
SPEECH_POLL_SECONDS = 1.0  # how often a Celery-dispatched run checks its samples' progress

# Speech work has its own queue, so GPU hosts run `celery -A workers worker -Q speech` next to the
# inference servers while the other workers stay as they are.
CELERY_TASK_ROUTES = {"sori.speech.*": {"queue": "speech"}}
# A message not acknowledged within this time is delivered again (Redis); above the longest speech task.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7 * 3600, minimum=60),
}

# --- storage --------------------------------------------------------------------------------------------
# Audio and exports go through Django's storage API. Set SORI_S3_BUCKET to keep them in S3-compatible
# object storage (django-storages), shared by every host; credentials come from the usual AWS variables
# or the SORI_S3_* ones below. django-storages and boto3 are the `s3` extra (the Docker image has it):
# the embedded install goes without them, and nothing here imports them.
SORI_S3_BUCKET = env_str("SORI_S3_BUCKET") or None
if SORI_S3_BUCKET:
    if importlib.util.find_spec("storages") is None or importlib.util.find_spec("boto3") is None:
        raise ImproperlyConfigured(
            "SORI_S3_BUCKET is set, but django-storages and boto3 are not installed: install Sori with its "
            "s3 extra (pip install '.[s3]'), or unset SORI_S3_BUCKET to keep files on the local disk"
        )
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": SORI_S3_BUCKET,
            "endpoint_url": env_str("SORI_S3_ENDPOINT_URL") or None,
            "region_name": env_str("SORI_S3_REGION") or None,
            "access_key": env_str("SORI_S3_ACCESS_KEY_ID") or None,
            "secret_key": env_str("SORI_S3_SECRET_ACCESS_KEY") or None,
            "location": env_str("SORI_S3_PREFIX", ""),
            "default_acl": None,
            "file_overwrite": False,
            # Audio leaves only through permission-checked views, never through a presigned URL.
            "querystring_auth": True,
        },
    }

# --- releases ---
# Optional upload of published releases to a Hugging Face dataset repository (apps/releases). The token is
# read here only when set; without one the upload button says what is missing.
HF_ENDPOINT = env_str("HF_ENDPOINT", "https://huggingface.co")
HF_TOKEN = env_str("HF_TOKEN")

# --- evaluation ---
# Scoring SpeechLMs (apps/evaluation). Judge calls go through the agents' `judge` role (SORI_AGENT_JUDGE);
# at most this many items are judged at once (the provider's AGENTS_CONCURRENCY still caps requests).
EVALUATION_JUDGE_WORKERS = env_int("SORI_EVALUATION_JUDGE_WORKERS", 4, minimum=1)
EVALUATION_JUDGE_SAMPLES = 3  # VoiceBench asks its judge for three samples (n=3)
# The judge's prompt: "fenced" (VoiceBench's wording with the response fenced and neutralised, so no response can
# talk the judge into a score) or "voicebench" (VoiceBench's prompt as it is, to compare with its numbers).
EVALUATION_JUDGE_PROMPT = env_str("SORI_EVALUATION_JUDGE_PROMPT") or "fenced"
if EVALUATION_JUDGE_PROMPT not in ("fenced", "voicebench"):
    raise ImproperlyConfigured("SORI_EVALUATION_JUDGE_PROMPT must be fenced or voicebench")
# Collecting responses from a model's OpenAI-compatible endpoint: requests in flight per endpoint, and the
# timeout of one request (a 4,096-token answer from a large model takes a while).
EVALUATION_COLLECT_CONCURRENCY = env_int("SORI_EVALUATION_COLLECT_CONCURRENCY", 4, minimum=1)
EVALUATION_COLLECT_TIMEOUT_SECONDS = float(env_int("SORI_EVALUATION_COLLECT_TIMEOUT_SECONDS", 600, minimum=1))
# A model's endpoint is untrusted (apps.agents.untrusted): the timeout above bounds each whole request; an
# answer is read up to this many bytes (after decompression); loopback and Sori's own hosts are refused
# unless allowed (a model served on the same machine); link-local and metadata addresses always are. A
# non-empty host list allows only those hosts (comma-separated).
EVALUATION_RESPONSE_MAX_BYTES = env_int("SORI_EVALUATION_RESPONSE_MAX_BYTES", 1024 * 1024, minimum=1024)
EVALUATION_ALLOW_LOCAL_ENDPOINTS = env_bool("SORI_EVALUATION_ALLOW_LOCAL_ENDPOINTS", False)
EVALUATION_ENDPOINT_HOSTS = env_list("SORI_EVALUATION_ENDPOINT_HOSTS", [])
EVALUATION_CANCEL_POLL_SECONDS = 1.0  # how often a collection looks for a cancel, to abort requests in flight
