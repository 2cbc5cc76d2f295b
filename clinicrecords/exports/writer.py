"""Writing one export attempt: every requested type's rows, read from one snapshot and streamed into NDJSON files.

`write_export` runs without a request (the worker's task calls it): it reads the clinic in a REPEATABLE READ
transaction of its own, bound to the clinic through `db.tenancy`, streams the rows (a server-side cursor, a
batch at a time: memory stays flat whatever the clinic's size) and renders each with the FHIR representation
the single reads answer with. Each file is written under a temporary name in the attempt's directory, flushed
to disk and renamed: a file under its final name is always complete, and an attempt that fails leaves none.

The transaction time is a safe watermark (docs/decisions/0100-bulk-export-snapshot-transaction-time.md): a row's
`updated_at` is its transaction's start, so a row committed after the snapshot may carry an earlier time. The
watermark is read before the snapshot is taken: the start of the oldest transaction then open in the database
(or the clock, when none is), so every row committed after the snapshot has a change time at or after it, and a
later export with `_since` = transaction time misses none (it may repeat a few).
"""

import contextlib
import datetime
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.orm import Session

from clinicrecords.api.render import json_bytes
from clinicrecords.api.representations import representation
from clinicrecords.db import ENGINE
from clinicrecords.db.tenancy import bind_to_clinic
from clinicrecords.exports.outcomes import operation_outcome
from clinicrecords.exports.sources import sources_for

log = logging.getLogger(__name__)

NDJSON_SUFFIX = ".ndjson"
LINES_SUFFIX = ".lines"
_PARTIAL_SUFFIX = ".partial"
# Rows fetched per round trip from the server-side cursor.
BATCH_ROWS = 1000


@dataclass(frozen=True)
class WrittenFile:
    type: str  # FHIR type ("Patient", ...; "OperationOutcome" for error files; "Bundle" for deleted)
    name: str  # file name inside the attempt's directory, e.g. "Patient-1.ndjson"
    count: int  # lines
    size: int  # bytes
    etag: str  # sha256 hex of the content
    patient_ids: tuple  # uuid.UUIDs of the patients whose data the file holds (the download's audit)
    permission: str = ""  # the read permission a key must hold to be served the file ("" for error files)


@dataclass(frozen=True)
class WrittenExport:
    transaction_time: datetime.datetime  # the safe watermark
    output: tuple
    error: tuple
    deleted: tuple  # only when since was given


@dataclass(frozen=True)
class Reader:
    """What the FHIR representations read of a request: the caller's identity (a referral's sender alone reads
    why it was declined; a care provider reads `editable` for the key's owner that added it)."""

    identity: object


@dataclass(frozen=True)
class _Owner:
    owner_id: object


# Equal to no owner id, None included: a referral recorded with no sender must not read as sent by "no owner".
_NOBODY = object()


# The oldest open transaction's start in this database, else the clock (see the module's docstring). Another
# role's sessions show no xact_start unless the role may read all statistics: the application's one role sees
# its own web processes and workers, which are every writer of clinic records.
_WATERMARK = text("""
    SELECT least(clock_timestamp(), min(xact_start)) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
""")


def safe_watermark(connection):
    return connection.execute(_WATERMARK).scalar_one()


def write_export(clinic_id, *, types, since, directory, split_bytes, base_url, registry, owner_id=None,
                 granted=None, engine=None, warnings=(), level="system"):
    """Write the export of `types` (FHIR types; `sources.EXPORT_TYPES`) of clinic `clinic_id` (uuid.UUID) into
    `directory` (the attempt's own, created by the caller), splitting a type's file past `split_bytes`.
    `since`: only what changed at or after it (and then `deleted`). `owner_id`: the key's owner, for the fields
    the reads show only to it (None: an owner that sent and added nothing).
    `granted`: the read permissions the key holds (None: all), which choose between two sources of one type.
    `base_url`: the clinic's FHIR base (the deleted bundles' full URLs).
    `level`: "patient" (Patient/$export) writes of the types outside the compartment only the records named.
    `warnings`: [(FHIR issue code, diagnostics)] the error file opens with, one OperationOutcome each of severity
    warning (the parameters a lenient kick-off ignored).
    Returns the WrittenExport; on an exception no file of this call is left behind."""
    engine = engine or registry[ENGINE]
    directory = Path(directory)
    sources = sources_for(types, granted)
    reader = Reader(_Owner(_NOBODY if owner_id is None else owner_id))
    attempt = _Attempt(directory, split_bytes)
    try:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            transaction_time = safe_watermark(connection)
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection:
            with Session(bind=connection) as db, db.begin():
                bind_to_clinic(db, clinic_id)
                output, deleted = [], []
                errors = attempt.series("OperationOutcome")
                for code, text in warnings:
                    errors.write(json_bytes(operation_outcome([(code, text)], "warning")), None, None)
                for source in sources:
                    files = attempt.series(source.fhir_type, source)
                    _write_source(db, registry, source.rows_at(level, since), source, reader, files, errors)
                    output.extend(files.close())
                for source in sources:
                    if since is not None and source.deleted is not None:
                        files = attempt.series("Bundle", source, deleted=True)
                        _write_deleted(db, source, since, base_url, files)
                        deleted.extend(files.close())
                error = errors.close()
        return WrittenExport(transaction_time=transaction_time, output=tuple(output), error=tuple(error),
                             deleted=tuple(deleted))
    except BaseException:
        attempt.discard()
        raise


def _write_source(db, registry, rows, source, reader, files, errors):
    to_fhir = representation(registry, source.kind).fhir
    # Closed however the loop ends: a server-side cursor left to the garbage collector after its connection
    # closed (a write that failed, a directory a cancel removed) raises in its finalizer.
    with contextlib.closing(db.execute(rows.execution_options(yield_per=BATCH_ROWS))) as result:
        for row in result:
            try:
                line = json_bytes(to_fhir(row, reader))
            except Exception as error:  # one record that cannot be rendered is reported, not the export lost
                # Its type and id only: an exception's text may quote the record's values (patient information).
                log.error("export: %s/%s could not be rendered (%s)", source.fhir_type, row.id,
                          type(error).__name__)
                errors.write(json_bytes(_outcome(source.fhir_type, row.id)), None, None)
                continue
            files.write(line, source.patient_id(row), row.id)


def _write_deleted(db, source, since, base_url, files):
    """The IG's deleted files: per removed record, a transaction Bundle whose one entry DELETEs it."""
    with contextlib.closing(db.execute(source.deleted(since).execution_options(yield_per=BATCH_ROWS))) as result:
        for row in result:
            url = f"{source.fhir_type}/{row.id}"
            bundle = {"resourceType": "Bundle", "type": "transaction",
                      "entry": [{"fullUrl": f"{base_url}/{url}", "request": {"method": "DELETE", "url": url}}]}
            files.write(json_bytes(bundle), row.patient_id, row.id)


def _outcome(fhir_type, record_id):
    return {"resourceType": "OperationOutcome",
            "issue": [{"severity": "error", "code": "exception",
                       "diagnostics": f"{fhir_type}/{record_id} could not be exported."}]}


class _Attempt:
    """The files one call writes, so that a failure removes every one of them, finished or not."""

    def __init__(self, directory, split_bytes):
        self.directory = directory
        self.split_bytes = split_bytes
        self.open_files = []
        self.paths = []
        # Each patient's id once for the whole attempt: every file naming them refers to the same object (ten
        # files of a 10,000-patient clinic held ten copies of each id, 15 MiB).
        self.patient_ids = {}

    def series(self, fhir_type, source=None, deleted=False):
        """The files of one source (or of the errors): `Patient-1.ndjson`, `Practitioner-care-provider-1.ndjson`,
        `Practitioner-care-provider-deleted-1.ndjson` (type Bundle), `OperationOutcome-1.ndjson`."""
        stem = fhir_type
        if source is not None:
            stem = "-".join(part for part in (source.fhir_type, source.name, "deleted" if deleted else "") if part)
        return _FileSeries(self, stem, fhir_type, str(source.permission) if source else "")

    def open(self, name, fhir_type, permission):
        file = _File(self.directory, name, fhir_type, permission, self.patient_ids)
        self.open_files.append(file)
        self.paths += [file.lines.partial, file.lines.path, file.partial, file.path]
        return file

    def discard(self):
        for file in self.open_files:
            file.handle.close()
            file.lines.handle.close()
        for path in self.paths:
            path.unlink(missing_ok=True)


class _FileSeries:
    """One type's files: lines go to the current file until it would pass `split_bytes`, then to the next."""

    def __init__(self, attempt, stem, fhir_type, permission):
        self.attempt = attempt
        self.stem = stem
        self.fhir_type = fhir_type
        self.permission = permission
        self.files = []
        self.current = None

    def write(self, line, patient_id, record_id):
        current = self.current
        if current is not None and current.size + len(line) + 1 > self.attempt.split_bytes:
            self.files.append(current.finish())
            current = None
        if current is None:
            name = f"{self.stem}-{len(self.files) + 1}{NDJSON_SUFFIX}"
            current = self.current = self.attempt.open(name, self.fhir_type, self.permission)
        current.write(line, patient_id, record_id)

    def close(self):
        if self.current is not None:
            self.files.append(self.current.finish())
            self.current = None
        return self.files


def _durable(path, partial, handle):
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()
    os.replace(partial, path)


class _Lines:
    """The file's line index beside it (`<name>.lines`): per line, its length in bytes, the record's id and its
    patient's ("-" for none), so a download can leave out the lines of patients restricted since, or of
    encounters marked sensitive since, without parsing the file (`line_index`)."""

    def __init__(self, directory, name):
        self.path = directory / (name + LINES_SUFFIX)
        self.partial = directory / (name + LINES_SUFFIX + _PARTIAL_SUFFIX)
        self.handle = open(self.partial, "wb")

    def write(self, length, record_id, patient_id):
        self.handle.write(f"{length} {record_id or '-'} {patient_id or '-'}\n".encode())


@dataclass(frozen=True)
class Line:
    length: int
    record_id: str | None
    patient_id: str | None


def line_index(path):
    """[Line] of the NDJSON file at `path`, from its index; None when the file has none."""
    index = path.parent / (path.name + LINES_SUFFIX)
    try:
        text = index.read_text()
    except FileNotFoundError:
        return None
    lines = []
    for entry in text.splitlines():
        length, record_id, patient_id = entry.split(" ")
        lines.append(Line(int(length), None if record_id == "-" else record_id,
                          None if patient_id == "-" else patient_id))
    return lines


class _File:
    """One NDJSON file (and its line index), written under temporary names and renamed into place once flushed
    to disk: the index first, so a file under its final name always has its index."""

    def __init__(self, directory, name, fhir_type, permission, known_patients):
        self.known_patients = known_patients
        self.path = directory / name
        self.partial = directory / (name + _PARTIAL_SUFFIX)
        self.name, self.fhir_type, self.permission = name, fhir_type, permission
        self.handle = open(self.partial, "wb")
        self.lines = _Lines(directory, name)
        self.digest = hashlib.sha256()
        self.size = 0
        self.count = 0
        self.patient_ids = set()

    def write(self, line, patient_id, record_id):
        line += b"\n"
        self.handle.write(line)
        self.lines.write(len(line), record_id, patient_id)
        self.digest.update(line)
        self.size += len(line)
        self.count += 1
        if patient_id is not None:
            self.patient_ids.add(self.known_patients.setdefault(patient_id, patient_id))

    def finish(self):
        _durable(self.lines.path, self.lines.partial, self.lines.handle)
        _durable(self.path, self.partial, self.handle)
        _sync_directory(self.path.parent)
        return WrittenFile(type=self.fhir_type, name=self.name, count=self.count, size=self.size,
                           etag=self.digest.hexdigest(), patient_ids=tuple(sorted(self.patient_ids)),
                           permission=self.permission)


def _sync_directory(directory):
    """The rename itself made durable: after a crash the finished file is under its final name."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
