from alembic import context

from clinicrecords.db.alembic_env import run

run(context, target="tenant")
