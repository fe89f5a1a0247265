"""Text the site takes in: what no text of it may hold.

NUL (U+0000) is refused everywhere text comes in, because PostgreSQL's text cannot hold it
(psycopg refuses a query with one with ValueError, before it reaches the database): in an
address or a header by ``apps.core.middleware.NulCharacterMiddleware``, in a form field or a
JSON string by the field (Django's and DRF's ``CharField`` refuse it), in an uploaded file by
the import that reads it (entrants: each field's rule; results: :func:`lines_with_nul`).
"""

from __future__ import annotations

NUL = "\x00"


def lines_with_nul(text: str) -> list[int]:
    """The numbers of the lines (from 1, as an editor counts them) holding a NUL character."""
    found: list[int] = []
    number, counted = 1, 0  # the line number of position ``counted``
    start = text.find(NUL)
    while start >= 0:
        number += text.count("\n", counted, start)
        counted = start
        found.append(number)
        end = text.find("\n", start)
        if end < 0:
            break
        start = text.find(NUL, end)
    return found
