"""Finishing touches on the OpenAPI schema (a drf-spectacular postprocessing hook).

Some answers can come from any endpoint of a kind, whatever its own ``extend_schema`` lists:
an address with a path parameter answers 404 when nothing has that id (or the caller may not
see it), a paginated list answers 404 for a page that does not exist, and every write answers
429 past the write rate limit (``apps.accounts.throttles``); every request answers 400 for a
NUL character in its address or a header (``apps.core.middleware.NulCharacterMiddleware``).
The hook documents them once, here, with the API's error body, so the schema says every
status the API gives — but a lock conflict's 503 (``apps.core.locking``), rare, and the
same for every endpoint, which docs/interfaces.md describes.
"""

from __future__ import annotations

from typing import Any

ERROR_REF = {"$ref": "#/components/schemas/Error"}


WRITES = {"post", "put", "patch", "delete"}


def _error(description: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": ERROR_REF}}, "description": description}


def document_common_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Add a 404 answer to every operation with a path parameter or a ``page`` parameter, a
    429 answer to every write, and a 400 answer to every operation."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        return result
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            params = operation.get("parameters", [])
            looked_up = any(p.get("in") == "path" for p in params)
            paginated = any(p.get("in") == "query" and p.get("name") == "page" for p in params)
            if looked_up or paginated:
                responses.setdefault("404", _error("Not found: no such object, or no such page."))
            if method in WRITES:
                responses.setdefault("429", _error("Too many writes: wait and try again."))
            responses.setdefault(
                "400", _error("The request cannot be read: e.g. a NUL character in its address.")
            )

    return result
