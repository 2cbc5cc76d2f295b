"""The bounded contexts of the monolith, in the order the application includes them."""

PLATFORM = (
    "clinicrecords.api",
    "clinicrecords.resources",
    "clinicrecords.db",
    "clinicrecords.tasks",
    "clinicrecords.health",
)

# The sandbox comes first: the contexts after it register their seeders with its directive.
CONTEXTS = (
    "clinicrecords.sandbox",
    "clinicrecords.clinics",
    "clinicrecords.access",
    "clinicrecords.onboarding",
    "clinicrecords.request_log",
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
    # After access: the portal wraps the API's security policy with its own (one policy per surface).
    "clinicrecords.portal",
)


def load_models():
    """Import every context's models so both metadata objects are complete (migrations, schema builds)."""
    import importlib
    for name in PLATFORM + CONTEXTS:
        try:
            importlib.import_module(name + ".models")
        except ModuleNotFoundError as exc:
            if exc.name != name + ".models":
                raise
