"""The application's settings, each declared once here: its ini name, its type, its default and the environment
variable that takes its place where it has one. `read` turns the ini's mapping into one frozen, typed
`AppSettings` at start-up (a value that does not parse stops start-up with one line naming the setting);
`make_config` keeps it in the registry, where `app_settings(registry)` finds it. Nothing else reads the ini's
settings or writes a default for one (tests/platform/test_settings.py holds every module to it): code takes
what it needs from the typed object, a section of it where that is all it needs.

In the ini, a value `env:NAME` is read from the environment variable NAME (production.ini's secrets and
URLs); an unset variable stops start-up: production must never fall back to a default secret or database.
"""

import dataclasses
import ipaddress
import os
import sys
import types
from pathlib import Path

import plaster

from clinicrecords.listening import recorded_url, served_identity

ENV_PREFIX = "env:"
# Where `make_config` keeps the settings it read (`app_settings(registry)`).
REGISTRY_KEY = "clinicrecords.settings"


class SettingsError(RuntimeError):
    """A setting is missing, does not parse, or refers to an environment variable that is not set."""


def as_bool(value):
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


def _whole_number_of_0_or_more(name, text):
    digits = str(text).replace("_", "")
    if not digits.isdigit():
        raise SettingsError(f"{name} must be a whole number of 0 or more, not {text!r}")
    return int(digits)


def _whole_number_of_1_or_more(name, text):
    number = _whole_number_of_0_or_more(name, text)
    if number < 1:
        raise SettingsError(f"{name} must be a whole number of 1 or more, not {text!r}")
    return number


def setting(name, default=dataclasses.MISSING, *, env=None, env_replaces=None, parse=None, secret=False, doc=""):
    """A field of a settings section: the ini `name`, its default (none: required), the environment variable
    `env` that takes the ini value's place when it is set (only where the ini says `env_replaces`, if given),
    and `parse` (text → value) where the field's type is not enough. A `secret` is left out of the repr."""
    metadata = {"name": name, "env": env, "env_replaces": env_replaces, "parse": parse, "doc": doc}
    return dataclasses.field(default=default, metadata=metadata, repr=not secret)


@dataclasses.dataclass(frozen=True)
class DatabaseSettings:
    url: str = setting("database_url", "embedded", env="DATABASE_URL", env_replaces="embedded",
                       doc="PostgreSQL's URL; `embedded`: $DATABASE_URL when set, else the server under the var dir")
    name: str = setting("database.name", "clinicrecords", doc="the embedded server's database")
    pooled: bool = setting("database.pooled", False, doc="the URL leads through a transaction pooler (PgBouncer)")
    direct_url: str | None = setting("database.direct_url", None, doc="migrate's direct connection behind a pooler")
    pool_size: int = setting("database.pool_size", 10)
    max_overflow: int = setting("database.max_overflow", 0)
    pool_recycle: int = setting("database.pool_recycle", 600, doc="seconds before a pooled connection is renewed")
    pool_timeout: float = setting("database.pool_timeout", 30.0, doc="seconds a request waits for a connection")
    pool_max_uses: int = setting("database.pool_max_uses", 500, doc="checkouts before a connection is replaced")
    connect_timeout: int = setting("database.connect_timeout", 5,
                                   doc="seconds a connection attempt waits for each host of the URL")
    commit_wait_ms: int = setting("database.commit_wait_ms", 5000,
                                  doc="a write no synchronous standby confirms this soon answers 503; 0: wait")
    application_name: str = setting("database.application_name", "clinicrecords")
    statement_timeout_ms: int = setting("database.statement_timeout_ms", 30000)
    idle_in_transaction_timeout_ms: int = setting("database.idle_in_transaction_timeout_ms", 60000)


@dataclasses.dataclass(frozen=True)
class QueueSettings:
    backend: str = setting("huey.backend", "sqlite", doc="sqlite, redis or memory")
    sqlite_path: str | None = setting("huey.sqlite_path", None, doc="default: huey.db in the var dir")
    redis_url: str | None = setting("huey.redis_url", None,
                                    doc="redis://host:port/db, or redis+sentinel://h1:26379,h2:26379/service/db")
    immediate: bool = setting("huey.immediate", False, doc="run tasks at once in the process (tests)")
    consumer_in_process: bool = setting("huey.consumer_in_process", False, doc="pserve runs the consumer too")
    workers: int = setting("huey.workers", 2, doc="the in-process consumer's threads")


@dataclasses.dataclass(frozen=True)
class SecretSettings:
    cursor: str = setting("secrets.cursor", secret=True, doc="signs list cursors")
    key_pepper: str = setting("secrets.key_pepper", secret=True, doc="hashes API keys")
    webhook_keys: str | None = setting("secrets.webhook_keys", None, secret=True,
                                       doc="seals webhook signing secrets: key_id:base64url-32-bytes, newest first")


@dataclasses.dataclass(frozen=True)
class ApiSettings:
    base_url: str | None = setting("api.base_url", None, doc="where partners reach the API; unset: the Host")
    max_body_bytes: int = setting("api.max_body_bytes", 1024 * 1024, doc="a route's body limit unless it says")
    max_url_length: int = setting("api.max_url_length", 4096)


@dataclasses.dataclass(frozen=True)
class SecuritySettings:
    hsts: bool = setting("security.hsts", False, doc="Strict-Transport-Security on https answers")
    events_path: str | None = setting("security.events_path", None,
                                      doc="the security-events file, off the database's disk, that a restore "
                                          "re-applies (docs/operations.md); default: the var dir's")


@dataclasses.dataclass(frozen=True)
class AccessSettings:
    key_cache_size: int = setting("access.key_cache_size", 10_000, doc="keys remembered per process; 0: none")


@dataclasses.dataclass(frozen=True)
class RateLimitSettings:
    backend: str = setting("ratelimit.backend", "postgres", doc="postgres or redis")
    redis_url: str | None = setting("ratelimit.redis_url", None,
                                    doc="redis://host:port/db, or redis+sentinel://h1:26379,h2:26379/service/db")
    live_per_minute: int = setting("ratelimit.live_per_minute", 600)
    test_per_minute: int = setting("ratelimit.test_per_minute", 120)


@dataclasses.dataclass(frozen=True)
class PlanSettings:
    paid_included_requests: int = setting("plans.paid.included_requests", 100_000,
                                          parse=_whole_number_of_0_or_more)
    paid_included_clinics: int = setting("plans.paid.included_clinics", 10, parse=_whole_number_of_0_or_more)


@dataclasses.dataclass(frozen=True)
class ReviewSettings:
    auto_accept_pause_threshold: int = setting("review.auto_accept_pause_threshold", 100,
                                               doc="automatic acceptances of one sender that pause it")
    auto_accept_pause_window_minutes: int = setting("review.auto_accept_pause_window_minutes", 60)


@dataclasses.dataclass(frozen=True)
class ClinicalSettings:
    rxnorm_extra_file: str | None = setting("clinical.rxnorm_extra_file", None, doc="the operator's own codes")


@dataclasses.dataclass(frozen=True)
class PatientImportSettings:
    wait_seconds: float = setting("patient_imports.wait_seconds", 10.0, doc="how long a POST waits for the job")
    row_delay_seconds: float = setting("patient_imports.row_delay_seconds", 0.0, doc="tests slow the writes")
    max_resumes: int = setting("patient_imports.max_resumes", 3, doc="restarts before a job is given up")
    stale_after_seconds: float = setting("patient_imports.stale_after_seconds", 60.0)


@dataclasses.dataclass(frozen=True)
class ExportSettings:
    path: str | None = setting("exports.path", None, doc="where export files are written (production: storage "
                               "every web process reads); default: exports/ in the var dir")
    split_bytes: int = setting("exports.split_bytes", 256 * 1024 * 1024, parse=_whole_number_of_1_or_more,
                               doc="an NDJSON file is split once it reaches this size")
    max_running_per_key: int = setting("exports.max_running_per_key", 3, parse=_whole_number_of_1_or_more,
                                       doc="exports one key may have queued or running in one clinic")
    max_kickoffs_per_hour: int = setting("exports.max_kickoffs_per_hour", 20, parse=_whole_number_of_1_or_more,
                                         doc="exports one key may kick off in an hour, in all its clinics "
                                             "(cancelled ones too: each is kept for its lifetime)")
    retry_after_seconds: int = setting("exports.retry_after_seconds", 5, parse=_whole_number_of_0_or_more,
                                       doc="Retry-After while an export runs; polling sooner is 429")
    lifetime_hours: float = setting("exports.lifetime_hours", 24.0, doc="files and job expire after this")
    max_attempts: int = setting("exports.max_attempts", 3, parse=_whole_number_of_1_or_more,
                                doc="attempts (a failed or interrupted one is restarted) before the job fails")
    stale_after_seconds: float = setting("exports.stale_after_seconds", 900.0,
                                         doc="a queued or running attempt older than this is restarted")
    finish_delay_seconds: float = setting("exports.finish_delay_seconds", 0.0,
                                          doc="tests: a pause between writing and finishing an attempt")


@dataclasses.dataclass(frozen=True)
class InventorySettings:
    till_max_age_minutes: int = setting("inventory.till_max_age_minutes", 30, doc="a till older is stale")
    batch_max_zeroed_share: float = setting("inventory.batch_max_zeroed_share", 0.5)
    batch_shrink_min_items: int = setting("inventory.batch_shrink_min_items", 4)


@dataclasses.dataclass(frozen=True)
class RequestLogSettings:
    enabled: bool = setting("request_log.enabled", True)
    buffer_entries: int = setting("request_log.buffer_entries", 10_000)
    batch_entries: int = setting("request_log.batch_entries", 1_000)
    flush_interval_ms: int = setting("request_log.flush_interval_ms", 500)


ENV_DNS_NAMESERVERS = "CLINICRECORDS_DNS_NAMESERVERS"


@dataclasses.dataclass(frozen=True)
class VerificationSettings:
    nameservers: str = setting("verification.nameservers", "", env=ENV_DNS_NAMESERVERS,
                               doc="host[:port] of the resolvers to ask, space-separated; empty: the system's")
    dns_timeout_seconds: float = setting("verification.dns_timeout_seconds", 5.0)


@dataclasses.dataclass(frozen=True)
class WebhookDeliverySettings:
    timeout_seconds: float = setting("webhooks.timeout_seconds", 10.0)
    retry_base_seconds: float = setting("webhooks.retry_base_seconds", 10.0)
    retry_cap_seconds: float = setting("webhooks.retry_cap_seconds", 6 * 3600.0)
    give_up_after_seconds: float = setting("webhooks.give_up_after_seconds", 3 * 86400.0)
    disable_after_seconds: float = setting("webhooks.disable_after_seconds", 5 * 86400.0)
    claim_seconds: float = setting("webhooks.claim_seconds", 60.0)
    sweep_grace_seconds: float = setting("webhooks.sweep_grace_seconds", 60.0)
    secret_overlap_seconds: float = setting("webhooks.secret_overlap_seconds", 86400.0)
    allow_private_addresses: bool = setting("webhooks.allow_private_addresses", False)
    require_https: bool = setting("webhooks.require_https", True)


ENV_SMTP_URL = "CLINICRECORDS_SMTP_URL"


@dataclasses.dataclass(frozen=True)
class MailDeliverySettings:
    sender: str = setting("mail.sender", doc="the From address: `Name <address>` or `address`")
    smtp_url: str = setting("mail.smtp_url", "", env=ENV_SMTP_URL, secret=True,
                            doc="smtp://[user:password@]host[:port][?starttls=true] or smtps://...; "
                                "empty: each message an .eml file in mail.directory")
    directory: str | None = setting("mail.directory", None, doc="default: mail/ in the var dir")
    timeout_seconds: float = setting("mail.timeout_seconds", 30.0, doc="the SMTP conversation's time limit")
    retry_base_seconds: float = setting("mail.retry_base_seconds", 30.0)
    retry_cap_seconds: float = setting("mail.retry_cap_seconds", 3600.0)
    max_attempts: int = setting("mail.max_attempts", 10, parse=_whole_number_of_1_or_more,
                                doc="a claim counts as one; then the message is given up")
    claim_seconds: float = setting("mail.claim_seconds", 120.0, doc="how long a worker holds a message it sends")
    sweep_grace_seconds: float = setting("mail.sweep_grace_seconds", 60.0,
                                         doc="a queued message not sent after this is queued again")
    keep_days: float = setting("mail.keep_days", 30.0, doc="sent and failed messages are deleted after")


@dataclasses.dataclass(frozen=True)
class PortalSettings:
    host: str = setting("portal.host", "", doc="the portal's own host; empty: /portal/ under the API's")
    url: str = setting("portal.url", "", doc="the portal's public address, for links made outside a request")
    secure_cookies: bool = setting("portal.secure_cookies", True)
    session_idle_minutes: int = setting("portal.session_idle_minutes", 30)
    session_absolute_hours: int = setting("portal.session_absolute_hours", 12)
    staff_session_idle_minutes: int = setting(
        "portal.staff_session_idle_minutes", 15,
        doc="the idle limit of a clinic staff member's session (staff can see patient data)")
    login_throttle_minutes: int = setting("portal.login_throttle_minutes", 15)
    login_failures_per_account_and_address: int = setting("portal.login_failures_per_account_and_address", 5)
    login_failures_per_address: int = setting("portal.login_failures_per_address", 20)
    terms_version: str | None = setting("portal.terms_version", None, doc="unset: the newest text")
    domain_check_interval_seconds: int = setting("portal.domain_check_interval_seconds", 30)
    webauthn_rp_id: str = setting("portal.webauthn_rp_id", "", doc="passkeys' relying party; empty: the portal's host")
    # Unset: argon2-cffi's own defaults (the test suite lightens them).
    argon2_time_cost: int | None = setting("portal.argon2.time_cost", None)
    argon2_memory_cost_kib: int | None = setting("portal.argon2.memory_cost_kib", None)
    argon2_parallelism: int | None = setting("portal.argon2.parallelism", None)


ENV_METRICS_TOKEN = "CLINICRECORDS_METRICS_TOKEN"


def _addresses(name, text):
    """Space-separated addresses or networks (`127.0.0.1 ::1 10.0.0.0/8`)."""
    try:
        return tuple(ipaddress.ip_network(part, strict=False) for part in str(text).split())
    except ValueError as exc:
        raise SettingsError(f"{name}: {exc}") from None


@dataclasses.dataclass(frozen=True)
class MetricsSettings:
    allow: tuple = setting("metrics.allow", (), parse=_addresses,
                           doc="addresses or networks GET /metrics answers without a token (development: "
                               "loopback); space-separated")
    token: str = setting("metrics.token", "", env=ENV_METRICS_TOKEN, secret=True,
                         doc="the bearer token a scraper sends to GET /metrics from any address; empty: none")
    backup_stanza: str = setting("metrics.backup_stanza", "",
                                 doc="the pgBackRest stanza whose last successful backup the worker reports; "
                                     "empty: not reported")


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    listen: str | None = setting("server.listen", None, doc="the ini's [server:main] listen (pserve's address)")
    served_url: str | None = setting("server.served_url", None,
                                     doc="where the running service answers, as it recorded in the var dir: "
                                         "filled for the operator CLI (`with_served_url`), not set in an ini")


@dataclasses.dataclass(frozen=True)
class AppSettings:
    """Every setting, by the first part of its ini name."""

    secrets: SecretSettings
    mail: MailDeliverySettings
    var: str = setting("clinicrecords.var", "var", env="CLINICRECORDS_VAR",
                       doc="where the embedded database and the file-backed queue keep their files")
    database: DatabaseSettings = DatabaseSettings()
    queue: QueueSettings = QueueSettings()
    api: ApiSettings = ApiSettings()
    security: SecuritySettings = SecuritySettings()
    access: AccessSettings = AccessSettings()
    ratelimit: RateLimitSettings = RateLimitSettings()
    plans: PlanSettings = PlanSettings()
    review: ReviewSettings = ReviewSettings()
    clinical: ClinicalSettings = ClinicalSettings()
    patient_imports: PatientImportSettings = PatientImportSettings()
    exports: ExportSettings = ExportSettings()
    inventory: InventorySettings = InventorySettings()
    request_log: RequestLogSettings = RequestLogSettings()
    verification: VerificationSettings = VerificationSettings()
    webhooks: WebhookDeliverySettings = WebhookDeliverySettings()
    portal: PortalSettings = PortalSettings()
    server: ServerSettings = ServerSettings()
    metrics: MetricsSettings = MetricsSettings()


# Settings of the libraries the application configures (pyramid_tm, pyramid_jinja2), set unless the ini does.
LIBRARY_DEFAULTS = {
    # The request's transaction is begun explicitly (pyramid_tm's explicit manager).
    "tm.manager_hook": "pyramid_tm.explicit_manager",
    # pyramid_tm would name the transaction's user by reading the key before traversal names the clinic, so
    # the key and its reach of the clinic would no longer be one statement (docs/decisions/0025-request-hot-path.md).
    "tm.annotate_user": "false",
    # A template naming something the view did not pass fails instead of printing nothing.
    "jinja2.undefined": "strict",
}


def resolve(settings):
    """Return a copy of `settings` where every `env:NAME` value is replaced by `$NAME`; an unset variable stops
    start-up."""
    resolved = {}
    for name, value in settings.items():
        if isinstance(value, str) and value.startswith(ENV_PREFIX):
            variable = value[len(ENV_PREFIX):]
            if not os.environ.get(variable):
                raise SettingsError(f"setting {name!r} needs the environment variable {variable}")
            value = os.environ[variable]
        resolved[name] = value
    return resolved


def with_library_defaults(settings):
    """`settings` (the ini's, resolved) with `LIBRARY_DEFAULTS` where it sets none: what Pyramid's registry
    keeps for the libraries that read it."""
    return {**LIBRARY_DEFAULTS, **settings}


def listen_in_ini(path, server="main"):
    """The `listen` of the ini's `[server:NAME]` (its first address), from `host` and `port` when it has those
    instead; None without such a section."""
    section = plaster.get_settings(path, f"server:{server}")
    if section.get("listen"):
        return section["listen"].split()[0]
    if section.get("host") or section.get("port"):
        return f"{section.get('host', 'localhost')}:{section.get('port', '6543')}"
    return None


def with_server_listen(settings, global_config):
    """`settings` with `server.listen` from the ini they were read from (`global_config["__file__"]`'s
    `[server:main]`), unless they set it themselves."""
    path = global_config.get("__file__")
    name = ServerSettings.__dataclass_fields__["listen"].metadata["name"]
    listen = listen_in_ini(path) if path and not settings.get(name) else None
    return {**settings, name: listen} if listen else settings


# Asked of `main` by the operator CLI (`bootstrap(..., options={FOLLOW_SERVED: "true"})`): build the links on
# the address the running service recorded, not on the ini's `listen` and this shell's $PORT.
FOLLOW_SERVED = "clinicrecords.follow_served"


def served_database(settings):
    """What names the database of the application's settings (an AppSettings) in a served record."""
    return served_identity(settings.database.url, settings.database.name)


def with_served_url(settings, global_config):
    """`settings` with `server.served_url` when `global_config` asks for it (FOLLOW_SERVED) and a service runs
    from the same var dir on the same database, having recorded where it answers (clinicrecords.listening)."""
    if not as_bool(global_config.get(FOLLOW_SERVED, "false")):
        return settings
    typed = read(settings)
    url = recorded_url(Path(typed.var).resolve(), served_database(typed))
    name = ServerSettings.__dataclass_fields__["served_url"].metadata["name"]
    return {**settings, name: url} if url else settings


def read(settings, environ=None):
    """The typed settings from the ini's mapping (`env:` values resolved). `environ` defaults to the process's
    environment."""
    environ = os.environ if environ is None else environ
    settings = resolve(settings)
    values = {}
    for field in dataclasses.fields(AppSettings):
        if dataclasses.is_dataclass(field.type):
            values[field.name] = read_section(field.type, settings, environ)
        else:
            values[field.name] = _value(field, settings, environ)
    return AppSettings(**values)


def read_section(section, settings, environ=None):
    """One section (a class above) from the ini's mapping: for what needs only it."""
    environ = os.environ if environ is None else environ
    return section(**{field.name: _value(field, settings, environ) for field in dataclasses.fields(section)})


def _value(field, settings, environ):
    """The ini's value parsed, or the environment variable's in its place; unset or empty: the default."""
    name, env, replaces = field.metadata["name"], field.metadata["env"], field.metadata["env_replaces"]
    text = settings.get(name)
    if isinstance(text, str) and not text.strip():
        text = None
    if env and environ.get(env) and replaces in (None, field.default if text is None else text):
        text = environ[env]
    if text is None:
        if field.default is dataclasses.MISSING:
            raise SettingsError(f"setting {name!r} is required")
        return field.default
    return _parse(field, name, text)


def _optional(annotation):
    return isinstance(annotation, types.UnionType) and type(None) in annotation.__args__


def _parse(field, name, text):
    if field.metadata["parse"] is not None:
        return field.metadata["parse"](name, text)
    kind = field.type
    if _optional(kind):
        (kind,) = [part for part in kind.__args__ if part is not type(None)]
    if kind is bool:
        return text if isinstance(text, bool) else as_bool(text)
    try:
        return kind(text.strip() if isinstance(text, str) and kind is not str else text)
    except ValueError:
        raise SettingsError(f"setting {name!r} must be {'a whole number' if kind is int else 'a number'}, "
                            f"not {text!r}") from None


def declared():
    """(ini name, environment variable, default, type) of every setting, in the order declared."""
    found = []

    def visit(section):
        for field in dataclasses.fields(section):
            if dataclasses.is_dataclass(field.type):
                visit(field.type)
            else:
                default = None if field.default is dataclasses.MISSING else field.default
                found.append((field.metadata["name"], field.metadata["env"], default, field.type))

    visit(AppSettings)
    return found


def app_settings(registry):
    """The settings `make_config` read when it built the application."""
    return registry[REGISTRY_KEY]


def refuse_to_start(error, at_once=False):
    """pserve, the worker and the operator CLI: a setting that stops start-up is one line naming it and exit 2,
    not a traceback (docs/deployment.md). `at_once` ends the process without unwinding, for where a
    SystemExit would be caught (pserve's server runner)."""
    print(f"clinicrecords: refusing to start: {error}", file=sys.stderr, flush=True)
    if at_once:
        os._exit(2)
    raise SystemExit(2)


def var_dir(settings):
    """Where the embedded database and the file-backed queue keep their files (created when missing)."""
    path = Path(settings.var).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path
