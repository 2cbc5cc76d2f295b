"""The bounded contexts of the monolith, in the order the application includes them: the one registry the
application (`includeme`), the schema builds (`models`) and the operator CLI (`cli`) all read."""

import importlib

PLATFORM = (
    "clinicrecords.api",
    "clinicrecords.resources",
    "clinicrecords.db",
    "clinicrecords.tasks",
    "clinicrecords.health",
    # After db (it watches the pool); before the contexts, which register their gauges with it.
    "clinicrecords.observability",
)

# The sandbox's seeders run in this order (patients before the records that name them).
CONTEXTS = (
    "clinicrecords.sandbox",
    "clinicrecords.clinics",
    "clinicrecords.identity",
    "clinicrecords.access",
    "clinicrecords.onboarding",
    "clinicrecords.request_log",
    "clinicrecords.mail",
    "clinicrecords.events",
    "clinicrecords.patients",
    "clinicrecords.providers",
    "clinicrecords.prescriptions",
    "clinicrecords.encounters",
    "clinicrecords.care_providers",
    "clinicrecords.review",
    "clinicrecords.clinical",
    "clinicrecords.inventory",
    "clinicrecords.listings",
    "clinicrecords.insurance",
    "clinicrecords.dispensing",
    "clinicrecords.test_helpers",
    "clinicrecords.scheduling",
    "clinicrecords.audit",
    "clinicrecords.exports",
    # Operator commands after a restore; imports the services of the contexts whose records it mends.
    "clinicrecords.restores",
    # Listens to the moments other contexts publish (clinicrecords.publishing); imported by the portal only.
    "clinicrecords.notifications",
    # After access: the portal wraps the API's security policy with its own (one policy per surface).
    "clinicrecords.portal",
)


def load_models():
    """Import every context's models so both metadata objects are complete (migrations, schema builds)."""
    _modules_named("models")


def command_modules():
    """Every package's operator commands (its `cli` module), in the order the application includes them."""
    return _modules_named("cli")


def _modules_named(module):
    found = []
    for name in PLATFORM + CONTEXTS:
        try:
            found.append(importlib.import_module(f"{name}.{module}"))
        except ModuleNotFoundError as exc:
            # Absent is fine (not every package has one); a module that fails to import is an error.
            if exc.name != f"{name}.{module}":
                raise
    return found
