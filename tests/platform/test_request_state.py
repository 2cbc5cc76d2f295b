"""What a request learns on its way lives in one typed object, `request.state` (clinicrecords/api/state.py):
no code hangs attributes of its own on the request or its answer, or probes for them, and each request starts
with a state of its own."""

import ast
import pathlib

from pyramid.response import Response

import clinicrecords
from clinicrecords import ClinicRecordsRequest
from clinicrecords.api.state import RequestState

PACKAGE = pathlib.Path(clinicrecords.__file__).parent

# Attributes Pyramid and its add-ons set on a request themselves (the router, pyramid_tm, the renderers), and
# the one a request made outside the router is given (tasks' and operators' requests: their own transaction).
PYRAMID_SET = frozenset({"context", "exception", "exc_info", "matchdict", "matched_route", "root", "view_name",
                         "subpath", "traversed", "virtual_root", "override_renderer", "tm", "registry"})


def _declared(owner, name):
    return name in PYRAMID_SET if owner == "request" and not hasattr(ClinicRecordsRequest, name) else True


def _ad_hoc(tree):
    """(line, text) of each attribute a module sets on, or probes for on, `request` or `response` that their
    classes do not declare."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name):
                        owner, name = element.value.id, element.attr
                        if owner == "request" and not _declared(owner, name):
                            found.append((node.lineno, f"request.{name} = ..."))
                        if owner == "response" and not hasattr(Response, name):
                            found.append((node.lineno, f"response.{name} = ..."))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
            owner, name = node.args[0], node.args[1]
            if isinstance(owner, ast.Name) and owner.id in ("request", "response") \
                    and isinstance(name, ast.Constant) and isinstance(name.value, str):
                known = _declared("request", name.value) if owner.id == "request" else hasattr(Response, name.value)
                if not known:
                    found.append((node.lineno, f"{node.func.id}({owner.id}, {name.value!r})"))
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and isinstance(node.value, ast.Name) \
                and node.value.id == "request":
            found.append((node.lineno, "request.__dict__"))
    return found


# waitress's parser names its object `request` too: the first line it read is its own attribute.
WAITRESS_PARSER = {("waitress_refusals.py", "getattr(request, 'first_line')")}


def test_no_code_hangs_its_own_attributes_on_the_request_or_its_answer():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        for line, text in _ad_hoc(ast.parse(path.read_text(), str(path))):
            if (relative, text) not in WAITRESS_PARSER:
                offenders.append(f"clinicrecords/{relative}:{line}: {text}")
    assert offenders == [], "put it on request.state (clinicrecords/api/state.py):\n" + "\n".join(offenders)


def test_the_scan_finds_what_it_forbids():
    source = ("request.shown_ids = []\nresponse.problem_code = 'x'\ngetattr(request, 'audit_done', False)\n"
              "request.__dict__.setdefault('built', {})\nrequest.state.audit_committed = True\n"
              "request.override_renderer = 't'\nresponse.status = 400\ngetattr(request, 'context', None)\n")
    assert [text for _, text in _ad_hoc(ast.parse(source))] == [
        "request.shown_ids = ...", "response.problem_code = ...", "getattr(request, 'audit_done')",
        "request.__dict__"]


def test_each_request_starts_with_a_state_of_its_own():
    first, second = ClinicRecordsRequest.blank("/"), ClinicRecordsRequest.blank("/")
    assert isinstance(first.state, RequestState) and first.state is first.state
    first.state.touched_record_ids.append("x")
    assert second.state.touched_record_ids == [] and second.state.gated_identity is None
