"""Errors that actions raise: a code (an enumeration, not a string in a view), a sentence a
person can act on, and the HTTP status the API answers with."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    PERMISSION_DENIED = "permission_denied"
    WRONG_STATUS = "wrong_status"
    INVALID_INPUT = "invalid_input"
    BAD_ROWS = "bad_rows"
    DRAW_IMPOSSIBLE = "draw_impossible"
    CONFLICT = "conflict"
    NOT_FOUND = "not_found"
    NOT_ELIGIBLE = "not_eligible"


STATUS = {
    ErrorCode.PERMISSION_DENIED: 403,
    ErrorCode.WRONG_STATUS: 409,
    ErrorCode.INVALID_INPUT: 400,
    ErrorCode.BAD_ROWS: 400,
    ErrorCode.DRAW_IMPOSSIBLE: 422,
    ErrorCode.CONFLICT: 409,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.NOT_ELIGIBLE: 422,
}


class ActionError(Exception):
    """An action refused: nothing was changed."""

    def __init__(self, code: ErrorCode, message: str, details: list | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []

    @property
    def http_status(self) -> int:
        return STATUS[self.code]

    def as_dict(self) -> dict:
        data: dict[str, object] = {"code": str(self.code), "message": self.message}
        if self.details:
            data["details"] = self.details
        return data
