"""The body of both Alembic environments (control and tenant).

Called by `clinicrecords-admin migrate` with a connection in `config.attributes`, or by the plain `alembic`
command for authoring revisions: `alembic -c development.ini -n alembic:tenant revision --autogenerate
-m "..." -x schema=clinic_<hex>` compares the models with one clinic's schema. The env.py files that call
`run` load every context's models first (the platform imports no context).
"""

from pyramid.paster import get_appsettings

from clinicrecords.db import make_engine
from clinicrecords.db.meta import CONTROL_SCHEMA, ControlBase, TenantBase
from clinicrecords.db.migrations import prepare_migration_transaction
from clinicrecords.settings import read


def run(context, target):
    config = context.config
    metadata = ControlBase.metadata if target == "control" else TenantBase.metadata
    connection = config.attributes.get("connection")
    if connection is not None:
        schema = config.attributes["schema"]
        _run(context, connection, metadata, schema, target)
        return

    schema = CONTROL_SCHEMA if target == "control" else context.get_x_argument(as_dictionary=True)["schema"]
    settings = read(get_appsettings(config.config_file_name, "main"))
    config.attributes["settings"] = settings
    engine = make_engine(settings)
    with engine.begin() as connection:
        prepare_migration_transaction(connection, schema)
        _run(context, connection, metadata, schema, target)


def _run(context, connection, metadata, schema, target):
    def include_object(obj, name, type_, reflected, compare_to):
        # The version table is Alembic's own; tenant comparisons ignore the control schema entirely.
        return name != "alembic_version"

    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table_schema=schema,
        include_object=include_object,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
