"""Wiring a reader and a tool can follow (decision 0077): what the application keeps in its registry is named by a
constant declared beside the code that sets it (so "go to definition" from `registry[ENGINE]` lands there),
never by a string written at the reading site; and the custom config directives are only the registration
vocabulary every context uses, each a public function of its module. The rest are plain function calls."""

import ast
import importlib
import re
import sys
from pathlib import Path

import webtest

import clinicrecords
from clinicrecords.api.openapi import document

PACKAGE = Path(clinicrecords.__file__).parent
ROOT = PACKAGE.parent
CONSTANT = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
DIRECTIVES = {"register_service_factory", "register_service", "add_api_resource", "add_clinic_collection",
              "add_representation", "add_metric_source", "add_public_clinic_path"}


def _declared_keys():
    """{value: "module.NAME"} of every module-level constant string of the application's modules."""
    found = {}
    for name, module in list(sys.modules.items()):
        if name == "clinicrecords" or name.startswith("clinicrecords."):
            for attribute, value in vars(module).items():
                if CONSTANT.match(attribute) and isinstance(value, str) and getattr(module, "__name__", "") == name:
                    found.setdefault(value, f"{name}.{attribute}")
    return found


def test_everything_in_the_registry_is_named_by_a_declared_constant(app, connected):
    # Fill the registry's caches too: the document, the method table, the view permissions.
    document(app.registry)
    client = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    client.get(f"/v1/clinics/{connected.clinic_id}/patients", headers=connected.headers)
    client.delete("/v1/me", headers=connected.headers, status=405)
    keys = [key for key in app.registry.keys() if isinstance(key, str)]
    assert {"db.engine", "review.kinds", "api.openapi_document", "access.view_permissions"} <= set(keys)
    declared = _declared_keys()
    assert [key for key in keys if key not in declared] == []


def _is_registry(node):
    return (isinstance(node, ast.Name) and node.id == "registry") or \
        (isinstance(node, ast.Attribute) and node.attr == "registry")


def _string_keys(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_registry(node.value) and isinstance(node.slice, ast.Constant):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_registry(node.func.value) \
                and node.func.attr in ("get", "setdefault", "pop") and node.args \
                and isinstance(node.args[0], ast.Constant):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value and any(
                isinstance(target, ast.Name) and target.id == "children_registered_as" for target in node.targets):
            yield node.lineno, ast.unparse(node)


def test_no_registry_key_is_written_as_a_string_where_it_is_read():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in _string_keys(tree)]
    assert found == []


def test_the_custom_directives_are_the_registration_vocabulary_only(app):
    ours = {name: function for name, (function, *_) in app.registry._directives.items()
            if function.__module__.startswith("clinicrecords")}
    assert set(ours) == DIRECTIVES
    for name, function in ours.items():
        assert getattr(importlib.import_module(function.__module__), name) is function  # go to definition


def test_every_task_is_declared_through_the_queue_s_decorators(app):
    """Each queued task carries stamps (its queued time, the trace context) that only the decorators of
    clinicrecords.tasks take off before calling the function: one declared straight on huey would fail."""
    from clinicrecords.tasks import huey

    tasks = huey._registry._registry.values()
    assert len(tasks) > 5
    undeclared = []
    for task_class in tasks:
        [function] = [cell.cell_contents for cell in task_class.execute.__closure__
                      if callable(cell.cell_contents)]
        if not hasattr(function, "__wrapped__"):
            undeclared.append(task_class.__name__)
    assert undeclared == []
