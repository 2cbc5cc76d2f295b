"""MkDocs hook: the API reference inside the docs site, the page the service itself serves at /v1/docs (Redoc
over docs/openapi.json, with the bundle the service vendors: no CDN). Generated at build time from the service's
own page (`clinicrecords/api/reference.py`, read as text: the docs' environment has none of the service's
dependencies), so the site always renders the document checked in beside the pages."""

import ast
from pathlib import Path

from mkdocs.structure.files import File

API = Path(__file__).resolve().parents[1] / "clinicrecords" / "api"


def _service_page():
    """The service's PAGE template (a string constant of api/reference.py)."""
    module = ast.parse((API / "reference.py").read_text(encoding="utf-8"))
    [page] = [node.value.value for node in module.body if isinstance(node, ast.Assign)
              and [getattr(target, "id", None) for target in node.targets] == ["PAGE"]]
    return page


def on_files(files, config):
    page = _service_page().format(spec_url="../openapi.json", script_url="redoc.standalone.js")
    files.append(File.generated(config, "reference/index.html", content=page))
    files.append(File.generated(config, "reference/redoc.standalone.js",
                                abs_src_path=str(API / "static" / "redoc.standalone.js")))
    return files
