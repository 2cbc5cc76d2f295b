"""Cursor-paged lists: `limit` (1–100, default 25), `starting_after` (a signed cursor from `next_cursor`)
and, where a list has it, `updated_since`. Keyset pagination over (sort key, id): no OFFSET, constant cost
per page however deep, stable under inserts.
"""

from dataclasses import dataclass

from marshmallow import fields, validate
from sqlalchemy import tuple_

from clinicrecords.api.schemas import RequestSchema

DEFAULT_LIMIT = 25
MAX_LIMIT = 100


class ListQuery(RequestSchema):
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(1, MAX_LIMIT))
    starting_after = fields.String(validate=validate.Length(1, 2000))


class UpdatedSinceListQuery(ListQuery):
    updated_since = fields.AwareDateTime(default_timezone=None)


@dataclass
class Page:
    items: list
    has_more: bool
    next_cursor: str | None


def cursor_scope(request):
    """A cursor only works on the list and for the caller it came from."""
    identity = request.identity
    owner = identity.owner_id if identity is not None else "public"
    return f"{request.path}|{owner}"


@dataclass(frozen=True)
class ListCursors:
    """What a service needs to page a list without the request: the signer and the list's cursor scope."""

    signer: object
    scope: str


def list_cursors(request):
    return ListCursors(request.registry["api.cursor_signer"], cursor_scope(request))


def keyset_page(cursors, db, statement, sort_columns, query, rows=False):
    """One page of `statement` (a select of one entity) ordered by `sort_columns`, the last one unique.

    The cursor carries the sort values of the page's last item, signed for this list and caller. With
    `rows=True` the statement selects columns and the items are rows (attribute access like an entity,
    without the ORM's per-object cost), for hot read paths whose representation only reads columns.
    `cursors` is the list's ListCursors (`list_cursors(request)` in a view or a service factory).
    """
    signer, scope = cursors.signer, cursors.scope
    if query.get("starting_after"):
        position = signer.verify(query["starting_after"], scope)
        statement = statement.where(tuple_(*sort_columns) > tuple_(*position))
    limit = query["limit"]
    statement = statement.order_by(*sort_columns).limit(limit + 1)
    items = db.execute(statement).all() if rows else db.scalars(statement).all()
    has_more = len(items) > limit
    items = items[:limit]
    next_cursor = None
    if has_more:
        next_cursor = signer.sign(scope, [getattr(items[-1], column.key) for column in sort_columns])
    return Page(items, has_more, next_cursor)


def envelope(page, render):
    return {"data": [render(item) for item in page.items], "has_more": page.has_more,
            "next_cursor": page.next_cursor}
