"""CSV for people to open in a spreadsheet: every CSV the portal or the CLI writes is made here.

A cell a spreadsheet would read as a formula (OWASP's CSV injection: it starts with `=`, `+`, `-`, `@`, a tab
or a carriage return, or their full-width forms, which some spreadsheets also accept) gets a leading `'`, so
it is shown as the text it is: a workspace named `=HYPERLINK(...)` stays a name, not a link that sends the
next cell to someone. The `csv` module quotes separators, quotes and line breaks.
"""

import csv
import io

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def neutral_cell(value):
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(columns, rows):
    """The header row and each row (an iterable of cells), every cell neutralised, as one string."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([neutral_cell(column) for column in columns])
    writer.writerows([neutral_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
