"""The ``id`` path converter: a database id in a URL.

Django's ``int`` converter takes any run of digits, and a 22-digit "id" then reaches the
database, which cannot hold it (SQLite raises OverflowError: a server error). An id here is
at most 18 digits — every value fits PostgreSQL's and SQLite's 64-bit integers — so a longer
one matches no route and is answered 404 like any unknown address.
"""

ID_PATTERN = "[0-9]{1,18}"


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
