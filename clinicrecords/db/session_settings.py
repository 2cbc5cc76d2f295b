"""The session timeouts every connection of the service runs under, and where they are set.

A statement that runs too long, or a transaction left open, must end on its own whatever reaches the server:
the web processes, the worker, an operator's command. The values are the application role's defaults in the
service's database (`ALTER ROLE ... IN DATABASE ... SET`), written by `migrate`, so they hold on every server
connection, including those a transaction pooler opens and hands from client to client. Direct connections
also send them as the `options` startup parameter, which a pooler refuses.
"""

from sqlalchemy import exc, text

from clinicrecords.settings import SettingsError

# The server's parameters, each set from its `database.*_ms` setting.
PARAMETERS = ("statement_timeout", "idle_in_transaction_session_timeout")


def timeouts(settings):
    """{parameter: milliseconds} from the settings' `database.statement_timeout_ms` and
    `database.idle_in_transaction_timeout_ms`."""
    return {"statement_timeout": settings.database.statement_timeout_ms,
            "idle_in_transaction_session_timeout": settings.database.idle_in_transaction_timeout_ms}


# Sent with the timeouts on a direct connection. A custom setting in the startup packet reaches the server only
# when nothing stands between: a transaction pooler refuses the `options` parameter, or drops it when told to
# ignore it. So its arrival proves the connection is direct (`pooler_evidence`).
DIRECT_PROBE = "clinicrecords.direct_connection"


def startup_options(settings):
    return " ".join([f"-c {DIRECT_PROBE}=on", *(f"-c {name}={value}" for name, value in timeouts(settings).items())])


def pooler_evidence(connect):
    """Why the connections `connect()` opens (with `startup_options`) go through a transaction pooler, or None
    when they reach PostgreSQL directly. Any other connection failure is raised."""
    try:
        with connect() as connection:
            arrived = connection.scalar(text(f"SELECT current_setting('{DIRECT_PROBE}', true)"))
    except exc.OperationalError as error:
        if "startup parameter" in str(error.orig):
            return "the server refused the options startup parameter"
        raise
    return None if arrived == "on" else "a startup parameter did not reach the server"


def set_role_defaults(connection, settings):
    """Make the timeouts the connecting role's defaults in this database (new server connections)."""
    database = connection.scalar(text("SELECT current_database()"))
    quoted = connection.dialect.identifier_preparer.quote(database)
    for name, value in timeouts(settings).items():
        # Names come from PARAMETERS and values are integers: nothing outside this module reaches the DDL.
        connection.execute(text(f"ALTER ROLE CURRENT_USER IN DATABASE {quoted} SET {name} = {int(value)}"))


def current_timeouts(connection):
    rows = connection.execute(text("SELECT name, setting FROM pg_settings WHERE name = ANY(:names)"),
                              {"names": list(PARAMETERS)})
    return {row.name: int(row.setting) for row in rows}


def verify_timeouts(engine, settings):
    """Refuse to serve through a pooler whose server connections do not carry the configured timeouts."""
    with engine.connect() as connection:
        found = current_timeouts(connection)
    wanted = timeouts(settings)
    if found != wanted:
        raise SettingsError(
            f"the database's session timeouts are {found}, not {wanted}: behind a transaction pooler they "
            "come from the role's defaults, which `clinicrecords-admin CONFIG migrate` sets "
            "(docs/deployment.md, Running behind PgBouncer)")
