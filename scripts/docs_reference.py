"""MkDocs hook: the API reference inside the docs site, as the service shows it at /v1/docs (Redoc over
docs/openapi.json, the bundle the service vendors: no CDN). Generated at build time, so the page always
renders the document checked in beside the pages."""

from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
REDOC = ROOT / "clinicrecords" / "api" / "static" / "redoc.standalone.js"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Clinic Records API reference</title>
</head>
<body>
<redoc spec-url="../openapi.json"></redoc>
<script src="redoc.standalone.js"></script>
</body>
</html>
"""


def on_files(files, config):
    files.append(File.generated(config, "reference/index.html", content=PAGE))
    files.append(File.generated(config, "reference/redoc.standalone.js", abs_src_path=str(REDOC)))
    return files
