"""Pieces every REST API module shares: the error format, pagination, the CSV parser.

Every error the API answers with is one JSON object a person can act on::

    {"code": "bad_rows", "message": "The file has 2 bad rows; ...", "details": [...]}

``code`` comes from :class:`~apps.core.errors.ErrorCode` or :class:`ApiErrorCode`, ``message``
is a sentence saying what to do, ``details`` lists the particulars (bad rows, invalid fields).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from drf_spectacular.plumbing import append_meta
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView, set_rollback
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ActionError, ErrorCode
from .locking import RETRY_AFTER_SECONDS, lock_conflict, lock_conflict_message
from .parsers import JSON_MAX_DEPTH, JsonParser  # noqa: F401 (for the API modules)


class ApiErrorCode(StrEnum):
    """Codes of errors only the API raises (actions raise :class:`ErrorCode`)."""

    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    THROTTLED = "throttled"
    REQUEST_TOO_LARGE = "request_too_large"
    TOO_MANY_FIELDS = "too_many_fields"
    BUSY = "busy"
    SERVER_ERROR = "server_error"


class ErrorSerializer(serializers.Serializer):
    """The body of every error response."""

    code = serializers.CharField(help_text="What went wrong, for programs: e.g. bad_rows.")
    message = serializers.CharField(help_text="What went wrong and what to do, for people.")
    details = serializers.ListField(
        child=serializers.DictField(),
        help_text="The particulars: bad rows as {line, message}, invalid fields as "
        "{field, message, code}; empty when there is nothing more to say.",
    )


def error_responses(*statuses: int) -> dict[int, type[ErrorSerializer]]:
    """``extend_schema(responses=...)`` entries for the errors an endpoint may answer with."""
    return {status: ErrorSerializer for status in statuses}


def _error(code: str, message: object, details: list | None = None) -> dict:
    return {"code": str(code), "message": str(message), "details": details or []}


def json_error(code: str, message: str, status: int, details: list | None = None) -> JsonResponse:
    """An error in the API's format from outside DRF (middleware, Django's error handlers)."""
    return JsonResponse(_error(code, message, details), status=status)


def is_api_path(path: str) -> bool:
    """Whether ``path`` (a request's ``path_info``) is an address of the API."""
    return path == "/api" or path.startswith("/api/")


def _field_errors(detail, field: str | None = None) -> list[dict]:
    """Flatten DRF's nested validation detail into ``[{field, message, code}]``; ``field`` is
    a dotted path such as ``rows.0.code``, None for errors of the whole request."""
    if isinstance(detail, dict):
        errors = []
        for key, value in detail.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:
                name = field
            else:
                name = f"{field}.{key}" if field else str(key)
            errors += _field_errors(value, name)
        return errors
    if isinstance(detail, list):
        errors = []
        for index, value in enumerate(detail):
            nested = isinstance(value, dict | list)
            errors += _field_errors(value, f"{field}.{index}" if nested and field else field)
        return errors
    return [{"field": field, "message": str(detail), "code": getattr(detail, "code", "invalid")}]


def _validation_error(exc: exceptions.ValidationError) -> dict:
    details = _field_errors(exc.detail)
    shown = "; ".join(
        f"{d['field']}: {d['message']}" if d["field"] else d["message"] for d in details[:5]
    ).removesuffix(".")  # the sentence around it puts its own full stop
    if len(details) > 5:
        message = _(
            "The request is not valid — %(errors)s (and %(more)s more). Correct it and send it "
            "again."
        ) % {"errors": shown, "more": len(details) - 5}
    else:
        message = _("The request is not valid — %(errors)s. Correct it and send it again.") % {
            "errors": shown
        }
    return _error(ErrorCode.INVALID_INPUT, message, details)


def _is_default(exc: exceptions.APIException) -> bool:
    return str(exc.detail) == str(exc.default_detail)


def _api_error(exc: exceptions.APIException, context: dict) -> dict:
    """The error body for one of DRF's exceptions."""
    view = context.get("view")
    request = context.get("request")
    if isinstance(exc, exceptions.ValidationError):
        return _validation_error(exc)
    if isinstance(exc, exceptions.ParseError):
        reason = str(exc.detail).rstrip(".")
        return _error(
            ErrorCode.INVALID_INPUT,
            _("The request body could not be read: %(reason)s.") % {"reason": reason},
        )
    if isinstance(exc, exceptions.NotAuthenticated):
        return _error(
            ApiErrorCode.NOT_AUTHENTICATED,
            _("Sign in first: send a session cookie or the header 'Authorization: Token <key>'."),
        )
    if isinstance(exc, exceptions.AuthenticationFailed):
        return _error(
            ApiErrorCode.AUTHENTICATION_FAILED,
            _(
                "Your credentials were not accepted (%(reason)s). Sign in again or use a valid "
                "token."
            )
            % {"reason": exc.detail},
        )
    if isinstance(exc, exceptions.PermissionDenied):
        message = _("You are not allowed to do this.") if _is_default(exc) else exc.detail
        return _error(ErrorCode.PERMISSION_DENIED, message)
    if isinstance(exc, exceptions.NotFound):
        if not _is_default(exc):
            message = exc.detail
        elif request is not None:
            message = _("There is nothing at %(path)s.") % {"path": request.path}
        else:
            message = _("There is nothing here.")
        return _error(ErrorCode.NOT_FOUND, message)
    if isinstance(exc, exceptions.MethodNotAllowed):
        allowed = ", ".join(m for m in getattr(view, "allowed_methods", []) if m != "OPTIONS")
        if request is None:
            message = _("This method is not allowed here; use %(allowed)s.")
        else:
            message = _("%(method)s is not allowed here; use %(allowed)s.")
        return _error(
            ApiErrorCode.METHOD_NOT_ALLOWED,
            message % {"method": getattr(request, "method", ""), "allowed": allowed},
        )
    if isinstance(exc, exceptions.NotAcceptable):
        return _error(
            ApiErrorCode.NOT_ACCEPTABLE,
            _(
                "This endpoint cannot answer in the format your Accept header asks for; "
                "ask for application/json."
            ),
        )
    if isinstance(exc, exceptions.UnsupportedMediaType):
        accepted = ", ".join(p.media_type for p in view.get_parsers()) if view else "JSON"
        return _error(
            ApiErrorCode.UNSUPPORTED_MEDIA_TYPE,
            _("%(reason)s Send one of: %(accepted)s.")
            % {"reason": exc.detail, "accepted": accepted},
        )
    if isinstance(exc, exceptions.Throttled):
        # The stubs lack the ``wait`` that Throttled's __init__ sets.
        wait: float | None = exc.wait  # type: ignore[attr-defined]
        if wait is None:
            message = _("Too many requests; try again later.")
        else:
            seconds = round(wait)
            message = ngettext(
                "Too many requests; try again in %(seconds)s second.",
                "Too many requests; try again in %(seconds)s seconds.",
                seconds,
            ) % {"seconds": seconds}
        return _error(ApiErrorCode.THROTTLED, message)
    return _error(exc.default_code, exc.detail)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: every error as ``{code, message, details}``.

    A lock conflict (a deadlock, a lock timeout: ``apps.core.locking``) answers 503 with
    ``Retry-After``: nothing was changed and the same request succeeds when sent again.
    Anything else (a bug) is left to Django, which logs it and answers 500.
    """
    if isinstance(exc, ActionError):
        set_rollback()
        return Response(_error(exc.code, exc.message, exc.details), status=exc.http_status)
    if lock_conflict(exc):
        set_rollback()
        return Response(
            _error(ApiErrorCode.BUSY, lock_conflict_message()),
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    # Django's own two, as DRF's handler turns them into its own.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = _api_error(exc, context)
    return response


class Pagination(PageNumberPagination):
    """``?page=N`` and ``?page_size=M`` (at most 500)."""

    page_size_query_param = "page_size"
    max_page_size = 500
    # Lazy (the stubs say str): DRF only calls its ``format``.
    invalid_page_message = gettext_lazy(  # type: ignore[assignment]
        "There is no page {page_number}: {message}."
    )

    def get_paginated_response_schema(self, schema: dict) -> dict:
        """DRF's page schema, with ``next`` and ``previous`` nullable in the schema's OpenAPI
        version (DRF writes 3.0's ``nullable``, which 3.1 has not)."""
        page = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):
            field = page["properties"][link]
            if field.pop("nullable", False):
                page["properties"][link] = nullable_schema(field)
        return page


def nullable_schema(schema: dict) -> dict:
    """``schema`` that also allows null, written as the schema's OpenAPI version says it
    (3.0: ``nullable: true``; 3.1: ``type: [..., "null"]``), for the schema pieces written
    by hand."""
    return append_meta(schema, {"nullable": True})


def decode_text(raw: bytes, encoding: str = "utf-8") -> str:
    """The text of an uploaded file, or a ParseError saying how to fix the file."""
    try:
        return raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise exceptions.ParseError(
            _("the file is not %(encoding)s text (%(error)s); save it as UTF-8 and send it again")
            % {"encoding": encoding, "error": exc}
        ) from exc


class CsvParser(BaseParser):
    """A raw ``text/csv`` body, parsed into a string (the CSV itself is checked by the action)."""

    media_type = "text/csv"

    # The body as a string (the stubs want a mapping): DRF hands request.data over as it is.
    def parse(self, stream, media_type=None, parser_context=None) -> str:  # type: ignore[override]
        if stream is None:
            return ""
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        return decode_text(stream.read(), encoding)


def request_csv_text(request, body: type[serializers.Serializer]) -> str:
    """The CSV an API request sends: a text/csv body, a multipart file field ``file``, or a
    JSON ``{"csv": "..."}`` checked by ``body`` (a serializer with a ``csv`` field)."""
    if isinstance(request.data, str):
        return request.data
    upload = request.FILES.get("file")
    if upload is not None:
        return decode_text(upload.read())
    if not isinstance(request.data, Mapping) or "csv" not in request.data:
        raise serializers.ValidationError(
            {
                "csv": _(
                    "Send the CSV as a text/csv body, as a multipart file field 'file', "
                    'or as JSON {"csv": "..."}.'
                )
            }
        )
    checked = body(data=request.data)
    checked.is_valid(raise_exception=True)
    return checked.validated_data["csv"]


class EndpointNotFoundView(APIView):
    """Answers every /api/ address that names no endpoint, in the API's error format."""

    authentication_classes: list = []
    schema = None  # not an endpoint of the schema

    def initial(self, request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        if not request.path.endswith("/") and _names_an_endpoint(request.path + "/"):
            message = _(
                "There is no API endpoint at %(path)s. Addresses end with a slash: %(path)s/"
            )
        else:
            message = _(
                "There is no API endpoint at %(path)s. The endpoints are listed at /api/docs/."
            )
        message %= {"path": request.path}
        raise exceptions.NotFound(message)


def _names_an_endpoint(path: str) -> bool:
    try:
        return getattr(resolve(path).func, "cls", None) is not EndpointNotFoundView
    except Resolver404:
        return False
