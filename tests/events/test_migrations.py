"""c09_webhooks (and the revisions after it) build exactly the webhook tables the models describe (the
suite's control schema is migrated by Alembic, not built from the models)."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from clinicrecords.db.meta import ControlBase

WEBHOOK_TABLES = {"webhook_endpoints", "webhook_deliveries", "webhook_attempts"}


def test_migrated_webhook_tables_equal_the_models(engine):
    def include(obj, name, type_, reflected, compare_to):
        table = obj if type_ == "table" else getattr(obj, "table", None)
        return table is not None and table.name in WEBHOOK_TABLES

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={
            "include_schemas": True, "include_object": include, "compare_type": True,
            "include_name": lambda name, type_, parent: type_ != "schema" or name == "control"})
        assert compare_metadata(context, ControlBase.metadata) == []
