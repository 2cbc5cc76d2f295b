"""The database: one engine per process, one session per request joined to pyramid_tm's transaction."""

import os

import zope.sqlalchemy
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from clinicrecords.db import embedded
from clinicrecords.settings import var_dir

DEFAULT_DATABASE = "clinicrecords"


def database_url(settings):
    """`embedded` means DATABASE_URL when it is set, else the self-contained server under the var dir."""
    url = settings.get("database_url", "embedded")
    if url == "embedded":
        url = os.environ.get("DATABASE_URL") or embedded.database_url(
            var_dir(settings), settings.get("database.name", DEFAULT_DATABASE)
        )
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(settings, **overrides):
    options = {
        "pool_size": int(settings.get("database.pool_size", 10)),
        "max_overflow": int(settings.get("database.max_overflow", 0)),
        # A backend caches catalog entries for every schema it touches: recycling bounds that growth.
        "pool_recycle": int(settings.get("database.pool_recycle", 600)),
        # Seconds a request waits for a free pooled connection before answering 503.
        "pool_timeout": float(settings.get("database.pool_timeout", 30)),
        "connect_args": {
            "application_name": settings.get("database.application_name", "clinicrecords"),
            "options": "-c statement_timeout={} -c idle_in_transaction_session_timeout={}".format(
                int(settings.get("database.statement_timeout_ms", 30000)),
                int(settings.get("database.idle_in_transaction_timeout_ms", 60000)),
            ),
        },
    }
    options.update(overrides)
    return create_engine(database_url(settings), **options)


def _request_db(request):
    session = request.registry["db.session_factory"]()
    zope.sqlalchemy.register(session, transaction_manager=request.tm)

    @request.add_finished_callback
    def close(request):
        session.close()

    return session


def includeme(config):
    settings = config.get_settings()
    engine = make_engine(settings)
    config.registry["db.engine"] = engine
    config.registry["db.session_factory"] = sessionmaker(bind=engine, expire_on_commit=False)
    config.add_request_method(_request_db, "db", reify=True)
