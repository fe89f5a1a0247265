"""Path converters of the site's addresses (registered in ``CoreConfig.ready``)."""

from __future__ import annotations

# The same bound for a router's lookups (``lookup_value_regex``).
ID_REGEX = "[0-9]{1,18}"


class IdConverter:
    """``<id:…>``: a number in an address — an id, a stage's place, a group's or a game's
    number. At most 18 digits, so every value fits the database's 64-bit integers: a longer
    number is an address of nothing (404), not an integer overflow in a query (a 500)."""

    regex = ID_REGEX

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
