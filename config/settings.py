"""Lantern's settings: one file, everything from the environment.

With no environment at all this is a development setup on SQLite in the project folder, so a fresh
checkout runs. Production sets DEBUG=0, SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def database_from_url(url: str, setting: str = "DATABASE_URL") -> dict:
    """``postgres://user:pass@host:port/name?sslmode=…`` → a Django DATABASES entry (psycopg 3 pool)."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"{setting} must start with postgres:// (leave it unset for SQLite); got {parts.scheme!r}"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured(f"{setting} must name a database, e.g. postgres://postgres@127.0.0.1/lantern")
    options: dict = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if env_bool("DATABASE_TRANSACTION_POOLER", False):
        # DATABASE_URL goes through PgBouncer in transaction mode (docs/production.md): each transaction may
        # get another server connection, so nothing may live in a session. No prepared statements (Django's
        # default already; said here so nobody turns them on), and no server-side cursors (below).
        options["prepare_threshold"] = None
    # Under ASGI every request runs in its own thread, so persistent connections would pile up
    # one per thread; psycopg's pool keeps a few warm and shares them (architecture note 11).
    options["pool"] = {
        "min_size": env_int("DB_POOL_MIN", 1, minimum=0),
        "max_size": env_int("DB_POOL_MAX", 10, minimum=1),
        "timeout": 10,
    }
    return {
        # Django's backend with a pool that sweeps out dead connections (config/postgresql/base.py).
        "ENGINE": "config.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 0,
        # With a pool, Django passes psycopg's check_connection to it: a connection PostgreSQL dropped
        # (restart, failover, pg_terminate_backend) is replaced instead of handed to a request (a 500).
        "CONN_HEALTH_CHECKS": True,
        # .iterator()'s named cursors outlive a transaction: not through a transaction-mode pooler.
        "DISABLE_SERVER_SIDE_CURSORS": env_bool("DATABASE_TRANSACTION_POOLER", False),
        "OPTIONS": options,
        "TEST": {"NAME": f"test_{name}"},
    }


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY: Lantern refuses to run with DEBUG off and no secret key.")
    SECRET_KEY = "dev-only-insecure-key-lantern-do-not-use-in-production"  # noqa: S105

# Names this build in what processes share (the drawn regions' cache keys, core/deploy.py): the git commit a
# deploy checks out, say. Unset, a hash of the templates and code, computed once per process.
DEPLOY_STAMP = env_str("DEPLOY_STAMP")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials.apps.SimpleAppConfig",
    "axes",
    # Only for its Swagger UI files (static/ninja/), served by us: the docs page loads nothing from a CDN.
    "ninja",
    "accounts",
    "live",
    "campaigns",
    "characters",
    # The task queue (django-tasks, its database backend) and the webhooks it delivers (issue 28).
    "django_tasks",
    "django_tasks_db",
    "webhooks",
    # Slash commands from Discord through its HTTP interactions endpoint (issue 43, docs/discord.md).
    "discord",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Below WhiteNoise (static files leave precompressed, untouched), above whatever writes a page's body.
    "core.compress.PageCompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "accounts.sessions.AuthenticationMiddleware",  # Django's, its user read for less (issue 39)
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # After htmx's (it reads request.htmx): a service's refusal that escaped its view answers 4xx, not 500.
    "core.refusals.RefusalMiddleware",
    "core.busy.BusyMiddleware",  # the database too busy to answer in time: a 503 to try again, not a 500
    "core.security.SecurityHeadersMiddleware",
    "accounts.pwa.user_header",  # whose page: the service worker keeps it in that person's cache (issue 29)
    # Last, as django-axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "core.templates.PlainNumbersTemplates",  # DjangoTemplates, numbers printed plainly
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "builtins": ["template_partials.templatetags.partials"],
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [
                        (
                            "django.template.loaders.cached.Loader",
                            [
                                "django.template.loaders.filesystem.Loader",
                                "django.template.loaders.app_directories.Loader",
                            ],
                        )
                    ],
                )
            ],
        },
    }
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASE_URL = env_str("DATABASE_URL")
# The live table's LISTEN, presence (session advisory locks) and after-commit NOTIFYs need real sessions: their
# own direct connections, so DATABASE_URL may go through a transaction-mode pooler (live.postgres). NAME None:
# the same database as DATABASE_URL (and the test runner's test_ copy of it in tests).
DATABASE_LISTEN: dict | None = None
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
    DATABASE_LISTEN = database_from_url(env_str("DATABASE_LISTEN_URL") or DATABASE_URL, "DATABASE_LISTEN_URL")
    DATABASE_LISTEN["OPTIONS"].pop("pool")
    if DATABASE_LISTEN["NAME"] == DATABASES["default"]["NAME"]:
        DATABASE_LISTEN["NAME"] = None
else:
    DATABASES = {
        "default": {
            # Django's, keeping its connections open between requests (config/sqlite/base.py).
            "ENGINE": "config.sqlite",
            "NAME": BASE_DIR / env_str("SQLITE_NAME", "db.sqlite3"),
            "OPTIONS": {
                "pool": env_int("SQLITE_POOL", 8, minimum=0),
                # IMMEDIATE takes the write lock at BEGIN, so two read-modify-write transactions
                # queue instead of failing with "database is locked" half-way (architecture notes).
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not memory: browser tests serve the test database from a separate server process.
            "TEST": {"NAME": BASE_DIR / env_str("SQLITE_TEST_NAME", ".test-db.sqlite3")},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Axes first: a locked account or address is refused before the password hasher runs,
# so guessing cannot burn CPU (issue 9, finding 5).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "campaigns:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
# English only (the words are ours): without the translation machinery every {{ value }} a template prints
# skips a per-thread language lookup: about a tenth of the sheet's rendering time (issue 12).
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# Where `manage.py collectstatic` gathers the files WhiteNoise (or the proxy) serves when DEBUG is off.
STATIC_ROOT = Path(env_str("STATIC_ROOT")) if env_str("STATIC_ROOT") else BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # WhiteNoise's (names by content hash, gzip and Brotli copies) over minified copies of our JS and CSS.
        "BACKEND": "core.static_files.MinifiedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Serve straight from the finders in tests and development so collectstatic is not needed.
WHITENOISE_USE_FINDERS = DEBUG or env_bool("WHITENOISE_USE_FINDERS", False)
# Never compress the event stream (architecture pitfall 6); WhiteNoise only touches static files anyway.

# Security: sensible in production, off where it would break plain-HTTP development.
# Django's database sessions, read by one fixed statement (accounts/sessions.py).
SESSION_ENGINE = "accounts.sessions"
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Login limits (django-axes): lock an account *from one address* after this many wrong passwords, and an
# address on its own after LOGIN_ADDRESS_FAILURE_LIMIT across accounts, for this long; never an account from
# everywhere (anyone could lock anyone out). The address is REMOTE_ADDR: behind a proxy, uvicorn
# --proxy-headers sets it. accounts/login_limits.py counts both; django-axes' own helpers read the parameters.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 20, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "accounts.login_limits.LoginLimits"
# A try refused while locked writes nothing and does not push the lock's end back: it stays cheap, and
# the lockout page's "try again in N minutes" stays true.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.views.login_locked_out"
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False

# Live table (server-sent events).
SSE_PING_SECONDS = env_int("SSE_PING_SECONDS", 15, minimum=1)
# Who may open a campaign's stream: the live app asks the campaigns app, so it imports neither app.
LIVE_MEMBERSHIP_CHECK = "campaigns.selectors.sits_at"
# What draws the journal's entries for the pages open in this process (live.hub): the campaigns app.
LIVE_RENDERER = "campaigns.push.render_push"
# Open event streams one account may hold in one app process (a tab holds one); more get a 429.
SSE_MAX_STREAMS_PER_USER = env_int("SSE_MAX_STREAMS_PER_USER", 12, minimum=1)
# Rolls one account may make in a minute, counted from the roll log (so across every process).
ROLLS_PER_MINUTE = env_int("ROLLS_PER_MINUTE", 60, minimum=1)
# API tokens (issue 28): how many one account may hold, and calls one token may make in a minute (counted in
# its row, so across every process; rolls through the API count against ROLLS_PER_MINUTE as on the pages).
API_TOKENS_PER_USER = env_int("API_TOKENS_PER_USER", 20, minimum=1)
API_CALLS_PER_MINUTE = env_int("API_CALLS_PER_MINUTE", 120, minimum=1)
# Discord (issue 43, docs/discord.md): the application's id and its public key (hex, from the Developer Portal);
# unset, /discord/interactions/ answers 404 with a sentence. Commands one Discord user, and one channel, may send
# in a minute (counted in their link rows, so across every process); a signed request older than the window (or
# sent again inside it) is refused.
DISCORD_APPLICATION_ID = env_str("DISCORD_APPLICATION_ID")
DISCORD_PUBLIC_KEY = env_str("DISCORD_PUBLIC_KEY")
DISCORD_CALLS_PER_MINUTE = env_int("DISCORD_CALLS_PER_MINUTE", 30, minimum=1)
DISCORD_CHANNEL_CALLS_PER_MINUTE = env_int("DISCORD_CHANNEL_CALLS_PER_MINUTE", 120, minimum=1)
DISCORD_MAX_AGE_SECONDS = env_int("DISCORD_MAX_AGE_SECONDS", 300, minimum=1)
# A member still counts as at the table this long after their last stream closed, so moving between
# the table and a sheet does not flash "left" / "arrived" to everyone.
SSE_PRESENCE_GRACE_SECONDS = env_int("SSE_PRESENCE_GRACE_SECONDS", 3, minimum=0)

# How signals travel between app processes (live.transport): LIVE_BROKER=redis://host:6379/0 for Redis pub/sub
# (large deployments); unset, LISTEN/NOTIFY on PostgreSQL, or inside the one process on SQLite. Redis channels are
# shared by every database number on a server: the prefix keeps two deployments (or test runs) apart.
LIVE_BROKER = env_str("LIVE_BROKER")
if LIVE_BROKER and not LIVE_BROKER.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"LIVE_BROKER must be a redis:// URL (or unset); got {LIVE_BROKER!r}")
LIVE_BROKER_PREFIX = env_str("LIVE_BROKER_PREFIX", "lantern:")

# The journal (live.journal): a hub that missed an announcement reads the heads of its campaigns this often; entries
# older than LIVE_JOURNAL_KEEP_DAYS are pruned by `manage.py prune_journal`, except each campaign's last
# LIVE_JOURNAL_KEEP_LAST (a page or a feed further behind than what is kept starts afresh).
LIVE_CATCHUP_SECONDS = env_int("LIVE_CATCHUP_SECONDS", 2, minimum=1)
LIVE_JOURNAL_KEEP_DAYS = env_int("LIVE_JOURNAL_KEEP_DAYS", 30, minimum=1)
LIVE_JOURNAL_KEEP_LAST = env_int("LIVE_JOURNAL_KEEP_LAST", 1000, minimum=0)

# Webhooks (issue 28): `manage.py webhook_worker` reads the journal and delivers each entry to the webhooks that want
# it (docs/production.md).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# A webhook URL that resolves to a private, loopback, link-local or reserved address is refused, at saving and at
# every try, unless this is on (development, where receivers run on this machine, and the tests).
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", DEBUG)
# One try waits this long to connect, then this long for each read (WEBHOOK_TIMEOUT_SECONDS: the read's old name).
WEBHOOK_CONNECT_TIMEOUT_SECONDS = env_int("WEBHOOK_CONNECT_TIMEOUT_SECONDS", 2, minimum=1)
WEBHOOK_READ_TIMEOUT_SECONDS = env_int(
    "WEBHOOK_READ_TIMEOUT_SECONDS", env_int("WEBHOOK_TIMEOUT_SECONDS", 5, minimum=1), minimum=1
)
# A webhook whose tries time out this many times in a row is paused (its owner sees why and resumes it).
WEBHOOK_PAUSE_AFTER_TIMEOUTS = env_int("WEBHOOK_PAUSE_AFTER_TIMEOUTS", 3, minimum=1)
# Tries per delivery, the first retry this many seconds after the first failure, each next one twice as long.
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6, minimum=1)
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 10, minimum=0)
# Deliveries one webhook is sent a minute; beyond it an event is not sent, and its page says so.
WEBHOOK_PER_MINUTE = env_int("WEBHOOK_PER_MINUTE", 30, minimum=1)
# A task claimed this long ago and still running belongs to a killed worker: it goes back to the queue.
WEBHOOK_LEASE_SECONDS = env_int("WEBHOOK_LEASE_SECONDS", 60, minimum=1)
WEBHOOK_KEEP_DAYS = env_int("WEBHOOK_KEEP_DAYS", 14, minimum=1)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}, "axes": {"level": "WARNING"}},
}

# Form fields are drawn by Jinja2 from Django's own Jinja2 copies of its form templates (same markup): Django's
# template engine drew the GM's table's ~25 fields in about 40 % of that page's time. The admin's widgets keep
# Django's renderer (core/templates.py).
FORM_RENDERER = "core.templates.FormRenderer"
