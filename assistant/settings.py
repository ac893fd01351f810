"""Settings read from the environment, with offline defaults.

With no environment at all the app runs on SQLite, the in-memory channel layer and Celery in eager
mode, so a fresh clone works without any service.  ``DATABASE_URL``, ``REDIS_URL`` and
``CELERY_BROKER_URL`` switch to PostgreSQL, Redis and real workers without a code change.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from assistant.static_headers import add_static_headers

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off: set it in the environment or in .env "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))' makes one)."
        )
    SECRET_KEY = "insecure-debug-only-key"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "preferences",
    "skills",
    "workflows",
    "assistant",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, which reads the form: a body past Django's limits gets a readable error.
    "assistant.middleware.RequestLimitsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "assistant.security.SameOriginSocketCSPMiddleware",  # django-csp's, with this host's websocket
    # Last: it turns a sign-in refused for too many failures into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Sign-in throttling (django-axes): the first backend refuses a username and address pair that failed
# AXES_FAILURE_LIMIT times in a row, for AXES_COOLOFF_MINUTES; the pair, so that one attacker cannot
# lock a user out from everywhere.  A sign-in that succeeds clears its failures.  Behind a reverse
# proxy, SIGNIN_PROXY_COUNT says how many proxies append to X-Forwarded-For (0: the peer's address).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_MINUTES = env.float("AXES_COOLOFF_MINUTES", default=15)
AXES_COOLOFF_TIME = timedelta(minutes=AXES_COOLOFF_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "assistant.security.lockout_response"
AXES_CLIENT_IP_CALLABLE = "assistant.security.client_ip"
SIGNIN_PROXY_COUNT = env.int("SIGNIN_PROXY_COUNT", default=0)
if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_MINUTES <= 0 or SIGNIN_PROXY_COUNT < 0:
    raise ImproperlyConfigured(
        "AXES_FAILURE_LIMIT and AXES_COOLOFF_MINUTES must be positive, SIGNIN_PROXY_COUNT not negative."
    )

# Content-Security-Policy (django-csp): pages load scripts, styles, images and connections from this
# origin only, none inline; the middleware adds this host's ws:/wss: origin to connect-src (CSP3's
# 'self' covers it, older browsers need it spelt out).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "connect-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
    },
}

ROOT_URLCONF = "assistant.urls"
ASGI_APPLICATION = "assistant.asgi.application"
WSGI_APPLICATION = "assistant.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the websocket's reads proceed while a workflow writes; the timeout rides out the
    # short write locks two tabs can contend for.
    # IMMEDIATE transactions take the write lock up front, so two writers queue on the timeout
    # instead of one failing when it upgrades a read lock.  Tests use a file, not shared-cache
    # memory, because SQLite's shared cache ignores the busy timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    DATABASES["default"].setdefault("TEST", {}).setdefault(
        "NAME",
        str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3"),  # one per run: parallel runs never collide
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")


def redis_channel_layers(url: str) -> dict[str, Any]:
    """The Redis channel layer at ``url``: channels_redis's pub/sub layer.

    Not its older ``RedisChannelLayer``, which queues the messages of all the websockets of one
    daphne process in one Redis key and pops them with BZPOPMIN on behalf of whichever socket holds
    its receive lock: when that socket closes, the pop is cancelled and a message already taken off
    Redis for *another* socket is lost (django/channels#1683, django/channels_redis#366).  Under load
    a reply stored in the database never reached its page while other users left.  With pub/sub each
    socket waits on a queue of its own, filled by one reader per process, and a closing socket
    takes nothing of another's.  What it gives up (messages kept in Redis while a web process is
    cut off from it) the page makes up for: it fetches what it missed when its socket reconnects.

    redis-py 8 reads with a 5 s socket timeout by default, which would cut the layer's idle reads
    (close 1011; django/channels_redis#422): its reads wait as Redis does.
    """
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": url, "socket_timeout": None}]},
        }
    }


if REDIS_URL:
    CHANNEL_LAYERS = redis_channel_layers(REDIS_URL)
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="")
# Without a broker there is no worker, so tasks run in-process: the offline default.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL == "memory://")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# A task whose worker died is given back to the broker, not acknowledged as done.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis (and SQS) hand an unacknowledged task to another worker after this many seconds; a run
# never needs that long (its lease says who works on it), so a lost one comes back in minutes.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=300)}
# A broker that is down must not hold a chat turn for long: the run is stored, and the sweeper
# dispatches it when the broker is back.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}

# Runs that always finish: a worker holds a run for WORKFLOW_LEASE_SECONDS and renews it while it
# works; the sweeper (celery beat every WORKFLOW_SWEEP_SECONDS, or `manage.py sweep_runs` from cron)
# dispatches runs whose lease expired or that were never taken, and fails a run for good, telling
# the user, after WORKFLOW_MAX_ATTEMPTS tries.
WORKFLOW_LEASE_SECONDS = env.int("WORKFLOW_LEASE_SECONDS", default=30)
WORKFLOW_SWEEP_SECONDS = env.int("WORKFLOW_SWEEP_SECONDS", default=10)
WORKFLOW_MAX_ATTEMPTS = env.int("WORKFLOW_MAX_ATTEMPTS", default=3)
# A step that fails because the plan is wrong (the event is not there, the time is taken, the calendar
# refuses the write) is handed to WORKFLOW_REPLANNER for a revised plan or a question, at most
# WORKFLOW_MAX_REPLANS times a run (0: never).
WORKFLOW_MAX_REPLANS = env.int("WORKFLOW_MAX_REPLANS", default=3)
# Connected calendar accounts are mirrored every CALENDAR_SYNC_SECONDS (celery beat, or
# `manage.py sync_accounts` from cron).
CALENDAR_SYNC_SECONDS = env.int("CALENDAR_SYNC_SECONDS", default=300)
CELERY_BEAT_SCHEDULE = {
    "workflows-sweep": {"task": "workflows.sweep_runs", "schedule": float(WORKFLOW_SWEEP_SECONDS)},
    "calendar-accounts-sync": {"task": "skills.sync_accounts", "schedule": float(CALENDAR_SYNC_SECONDS)},
    "model-calls-prune": {"task": "assistant.prune_model_calls", "schedule": 86400.0},
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "chat"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# In debug (and tests) static files are served from the apps directly, no collectstatic needed.
WHITENOISE_USE_FINDERS = DEBUG
# WhiteNoise answers before the CSP and X-Frame-Options middlewares: it adds their headers itself.
WHITENOISE_ADD_HEADERS_FUNCTION = add_static_headers

# Addresses users give (a CalDAV server's) reach public internet addresses only, and over https only;
# these networks they may reach as well, plain http included: e.g. "192.168.1.0/24" for a Radicale on
# the home network, "10.89.0.0/24" for one in a container network beside the app.  In development
# (DEBUG) every network is allowed, for the test servers on loopback.  See skills/outbound.py.
OUTBOUND_ALLOWED_NETWORKS = env.list(
    "OUTBOUND_ALLOWED_NETWORKS", default=["0.0.0.0/0", "::/0"] if DEBUG else []
)

# Mail to attendees ("notify them") is printed to the console unless EMAIL_URL names an SMTP server,
# e.g. smtp+tls://user:password@mail.example.org:587 (django-environ's form).
# Until then the reply to "notify them" says that mail is not configured and nobody was emailed.
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
# A mail server that does not answer must not hold a workflow step (or a worker) for long; a mail
# that timed out is retried by skills.notifications_send.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
if env.str("EMAIL_URL", default=""):
    globals().update(env.email_url("EMAIL_URL"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="assistant@localhost")

# The assistant's own knobs.
ASSISTANT_DEFAULT_TIMEZONE = env.str("ASSISTANT_DEFAULT_TIMEZONE", default="America/New_York")
WORKFLOW_MAX_TASKS = env.int("WORKFLOW_MAX_TASKS", default=100)
if not 1 <= WORKFLOW_MAX_TASKS <= 1000:
    raise ImproperlyConfigured("WORKFLOW_MAX_TASKS must be between 1 and 1000.")
# Who reads a chat turn: "rules" (offline), "routed" (the rules, and the LLM planner for what they are
# unsure of), "llm" or "llm-single" (the planner for every turn, in three phases or one: for measuring).
# Empty: routed when LLM_MODEL is set, rules otherwise.
ASSISTANT_DECOMPOSER = env.str("ASSISTANT_DECOMPOSER", default="")
if ASSISTANT_DECOMPOSER not in ("", "rules", "routed", "llm", "llm-single"):
    raise ImproperlyConfigured("ASSISTANT_DECOMPOSER must be rules, routed, llm or llm-single (or empty).")
# A language model, asked by the LLM planner and the LLM skills (issue 15): empty LLM_MODEL means
# none, the offline default.  LLM_MODEL is provider:model (openai:gpt-4.1-mini) or, with
# LLM_BASE_URL (an OpenAI-compatible server: Ollama http://host:11434/v1, vLLM, llama.cpp), the name
# that server serves.  LLM_API_KEY is handed to the provider; LLM_TIMEOUT_SECONDS bounds one request.
# Read by assistant/llm/config.py, which reports a malformed value when the model is first asked for.
LLM_MODEL = env.str("LLM_MODEL", default="")
LLM_BASE_URL = env.str("LLM_BASE_URL", default="")
LLM_API_KEY = env.str("LLM_API_KEY", default="")
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=20.0)
# What the model may spend, in tokens (input and output): LLM_TURN_TOKENS on planning one chat turn,
# LLM_DAILY_TOKENS per user over the last 24 hours (0: no daily limit); past either the turn falls
# back to the rules.  LLM_DAILY_COST_USD is the same day in dollars (0: no cost limit), priced by
# genai-prices; a model it has no price for (a local Ollama) costs nothing towards it.  Every call
# is a ModelCall row (admin: Chat -> Model calls); its prompt and output, which quote the user and
# their calendar, are blanked after LLM_LOG_DAYS days (celery beat daily, or
# `manage.py prune_model_calls` from cron), its numbers kept for the usage statistics.
LLM_TURN_TOKENS = env.int("LLM_TURN_TOKENS", default=40000)
LLM_DAILY_TOKENS = env.int("LLM_DAILY_TOKENS", default=400000)
LLM_DAILY_COST_USD = env.float("LLM_DAILY_COST_USD", default=0.0)
LLM_LOG_DAYS = env.int("LLM_LOG_DAYS", default=30)
if min(LLM_TURN_TOKENS, LLM_DAILY_TOKENS, LLM_DAILY_COST_USD, LLM_LOG_DAYS) < 0:
    raise ImproperlyConfigured(
        "LLM_TURN_TOKENS, LLM_DAILY_TOKENS, LLM_DAILY_COST_USD and LLM_LOG_DAYS cannot be negative."
    )
# Calendar accounts: the provider class serving each kind of account (like SESSION_ENGINE); a
# calendar without an account is the built-in store's ("local").  CREDENTIAL_KEYS are the Fernet
# keys account credentials are encrypted with (the first encrypts, all decrypt; see skills/crypto.py);
# only needed once an account with credentials is connected.
CALENDAR_PROVIDERS = {
    "local": "skills.providers.local.LocalProvider",
    "google": "skills.providers.google.GoogleProvider",
    "caldav": "skills.providers.caldav.CaldavProvider",
}
CREDENTIAL_KEYS = env.list("CREDENTIAL_KEYS", default=[])
# Google Calendar: the operator's OAuth client ("Web application"; register the redirect URI
# https://<this host>/settings/calendars/google/callback/).  Without them Google cannot be connected.
GOOGLE_CLIENT_ID = env.str("GOOGLE_CLIENT_ID", default="")
GOOGLE_CLIENT_SECRET = env.str("GOOGLE_CLIENT_SECRET", default="")
GOOGLE_AUTH_URI = env.str("GOOGLE_AUTH_URI", default="https://accounts.google.com/o/oauth2/auth")

# Above DEBUG no log line shows an exception's message or a validated input (either may quote the
# user's words or their events' titles): see assistant/logsafety.py.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"withhold_user_text": {"()": "assistant.logsafety.WithholdUserText"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["withhold_user_text"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}
WORKFLOW_RUN_LISTENERS = ["assistant.services.run_settled"]
WORKFLOW_REPLANNER = "assistant.escalation.replan"
