from alembic import context

from clinicrecords.contexts import load_models
from clinicrecords.db.alembic_env import run

load_models()  # the models of every context, so the metadata compared is complete
run(context, target="tenant")
