"""The one registry of contexts (`clinicrecords.contexts`): the application, the schema builds and the operator
CLI all read it, so a context listed there is complete everywhere and nothing is registered twice."""

from pathlib import Path

import clinicrecords
from clinicrecords import contexts
from clinicrecords.cli import build_parser

# The operator CLI's top-level commands: a contract operators' scripts rely on.
COMMANDS = {
    "account", "audit", "auto-accept", "calendar", "care-provider", "claim", "clinic", "connection", "coverage",
    "database", "demo", "dispensing", "encounter", "insurer", "item", "key", "listing", "listings", "mail",
    "migrate", "patient",
    "payer", "payment-advice", "portal", "prescription", "provider", "referral", "requests", "routes", "stock",
    "submission", "till", "usage", "webhook", "workspace",
}


def _subcommands(parser):
    (commands,) = [action for action in parser._actions if action.dest == "command"]
    return commands.choices


def test_the_cli_offers_every_command_of_every_registered_context():
    assert set(_subcommands(build_parser())) == COMMANDS


def test_every_cli_module_is_registered_by_the_registry_or_by_its_contexts_cli():
    registered = contexts.command_modules()
    reached = {module.__name__ for module in registered}
    reached |= {value.__name__ for module in registered for value in vars(module).values()
                if getattr(value, "__name__", "").endswith(".cli") and hasattr(value, "register")}
    package = Path(clinicrecords.__file__).parent
    modules = {".".join(("clinicrecords", *path.relative_to(package).with_suffix("").parts))
               for path in package.rglob("cli.py")}
    assert "clinicrecords.portal.console.staff.cli" in modules
    assert modules <= reached, sorted(modules - reached)


def test_the_command_modules_follow_the_application_order():
    packages = [module.__name__.rsplit(".", 1)[0] for module in contexts.command_modules()]
    order = contexts.PLATFORM + contexts.CONTEXTS
    assert packages == sorted(packages, key=order.index)
    assert {"clinicrecords.clinics", "clinicrecords.review", "clinicrecords.portal"} <= set(packages)
    assert "clinicrecords.patients" not in packages  # a context without a cli module is simply skipped
