"""Every relation one clinic schema puts in pg_class, by kind (docs/performance.md, "Tenant scale").

Each relation is a pg_class row and an entry in the catalog cache of every backend that touches it, multiplied
by the number of clinics; so the count is pinned by a test and the plain indexes are listed for review: an
index no query uses and no constraint needs is a cost paid 10,000 times for nothing.
"""

from sqlalchemy import text

# The schema's own relations; a table's TOAST table and its index live in pg_toast, reached through the table.
_RELATIONS = text("""
    SELECT c.oid, c.relname, c.relkind, c.reltoastrelid
    FROM pg_catalog.pg_class c
    WHERE c.relnamespace = to_regnamespace(:schema)
""")

_TOAST_INDEXES = text("""
    SELECT count(*) FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
    WHERE t.oid IN (SELECT reltoastrelid FROM pg_catalog.pg_class
                    WHERE relnamespace = to_regnamespace(:schema) AND reltoastrelid <> 0)
""")

# Each index of the schema with its table, its columns in order, whether it is the primary key, and the
# constraint (unique or exclusion) that owns it, if any: looked up by its table (pg_constraint's index on conrelid),
# since nothing indexes conindid and a scan of every clinic's constraints per index outlasts the statement timeout
# at 10,000 clinics.
_INDEXES = text("""
    SELECT ix.relname AS index, tb.relname AS "table",
           array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                 JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                 ORDER BY k.n)::text[] AS columns,
           i.indkey::int2[] AS attnums, i.indisprimary AS primary, i.indisunique AS unique,
           (SELECT con.contype FROM pg_catalog.pg_constraint con
            WHERE con.conrelid = i.indrelid AND con.conindid = i.indexrelid
              AND con.contype IN ('p', 'u', 'x')) AS constraint_kind
    FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class ix ON ix.oid = i.indexrelid
    JOIN pg_catalog.pg_class tb ON tb.oid = i.indrelid
    WHERE tb.relnamespace = to_regnamespace(:schema)
    ORDER BY tb.relname, ix.relname
""")

# Each foreign key of the schema: the referencing table and its columns, in the key's order.
_FOREIGN_KEYS = text("""
    SELECT con.conname AS name, tb.relname AS "table", con.conkey::int2[] AS attnums,
           con.confrelid::regclass::text AS referenced
    FROM pg_catalog.pg_constraint con
    JOIN pg_catalog.pg_class tb ON tb.oid = con.conrelid
    WHERE con.contype = 'f' AND tb.relnamespace = to_regnamespace(:schema)
""")

KINDS = ("tables", "toast_tables", "toast_indexes", "sequences", "views", "primary_keys",
         "unique_or_exclusion_indexes", "unique_indexes", "foreign_key_indexes", "plain_indexes")


def indexes(connection, schema):
    """Every index of `schema`: {"index", "table", "columns", "role"}, where role is "primary key",
    "unique constraint"/"exclusion constraint", "unique index" (unique without a constraint),
    "foreign key <name>" (a plain index whose leading columns are that key's, so the key's lookups from the
    referenced side use it) or "plain"."""
    foreign_keys = connection.execute(_FOREIGN_KEYS, {"schema": schema}).mappings().all()
    found = []
    for row in connection.execute(_INDEXES, {"schema": schema}).mappings():
        if row["primary"]:
            role = "primary key"
        elif row["constraint_kind"] == "u":
            role = "unique constraint"
        elif row["constraint_kind"] == "x":
            role = "exclusion constraint"
        elif row["unique"]:
            role = "unique index"
        else:
            keys = [key["name"] for key in foreign_keys if key["table"] == row["table"]
                    and sorted(row["attnums"][:len(key["attnums"])]) == sorted(key["attnums"])]
            role = f"foreign key {keys[0]}" if keys else "plain"
        found.append({"index": row["index"], "table": row["table"], "columns": list(row["columns"]), "role": role})
    return found


def relations_by_kind(connection, schema):
    """How many relations of each kind (KINDS) one clinic schema makes, and their total."""
    relations = connection.execute(_RELATIONS, {"schema": schema}).mappings().all()
    counts = dict.fromkeys(KINDS, 0)
    counts["tables"] = sum(1 for r in relations if r["relkind"] in ("r", "p"))
    counts["toast_tables"] = sum(1 for r in relations if r["reltoastrelid"])
    counts["toast_indexes"] = connection.scalar(_TOAST_INDEXES, {"schema": schema})
    counts["sequences"] = sum(1 for r in relations if r["relkind"] == "S")
    counts["views"] = sum(1 for r in relations if r["relkind"] in ("v", "m"))
    for index in indexes(connection, schema):
        role = index["role"]
        if role == "primary key":
            counts["primary_keys"] += 1
        elif role.endswith("constraint"):
            counts["unique_or_exclusion_indexes"] += 1
        elif role == "unique index":
            counts["unique_indexes"] += 1
        elif role.startswith("foreign key"):
            counts["foreign_key_indexes"] += 1
        else:
            counts["plain_indexes"] += 1
    counts["in_schema"] = len(relations)
    counts["total"] = len(relations) + counts["toast_tables"] + counts["toast_indexes"]
    return counts
