"""Middleware of the whole site (listed in ``settings.MIDDLEWARE``)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _

from .api import ApiErrorCode, is_api_path, json_error
from .errorpages import api_refusal, page_not_found, too_large, too_large_page
from .errors import ErrorCode
from .locking import RETRY_AFTER_SECONDS, lock_conflict, lock_conflict_message
from .site import remember_site_url
from .text import NUL

logger = logging.getLogger(__name__)


class SiteUrlMiddleware:
    """Records the address each request came in on, for the links of e-mails written later
    (only while ``SITE_URL`` is empty; see ``apps.core.site``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        remember_site_url(request)
        return self.get_response(request)


def nul_in_address(request: HttpRequest) -> str | None:
    """Where the request's address or headers hold a NUL character (``path``, ``query`` or
    the header's name), or None. PostgreSQL's text cannot hold NUL (psycopg refuses the query
    with ValueError), and no address, parameter or header of this site has one."""
    if NUL in request.path_info or NUL in request.path:
        return "path"
    query = request.META.get("QUERY_STRING", "")
    if "%00" in query or NUL in query:
        return "query"
    for key, value in request.META.items():
        if key.startswith("HTTP_") and isinstance(value, str) and NUL in value:
            return key.removeprefix("HTTP_").replace("_", "-").title()
    return None


class NulCharacterMiddleware:
    """Refuses with 400 and a sentence a request whose path, query string or a header holds a
    NUL character (``%00``), before any code looks anything up with it — the public pages'
    cache, the session, a view's query: PostgreSQL cannot compare text with NUL in it, so
    such a value would otherwise end in a server error. Form fields and JSON strings are
    checked by their fields (Django's and DRF's ``CharField`` refuse NUL with the field's
    error); uploaded files by what reads them.

    Placed above the public pages' cache (whose key reads the database with the address's
    parts), so it picks the answer's language itself (cookie or Accept-Language)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = nul_in_address(request)
        if where is None:
            return self.get_response(request)
        with translation.override(translation.get_language_from_request(request)):
            if where == "path":
                message = _(
                    "The address holds a NUL character (%(code)s), which no address of this "
                    "site has; remove it and try again."
                )
            elif where == "query":
                message = _(
                    "The address's query string holds a NUL character (%(code)s), which no "
                    "parameter of this site takes; remove it and try again."
                )
            else:
                message = _(
                    "The request's %(header)s header holds a NUL character (%(code)s), which "
                    "no header of this site takes; remove it and try again."
                )
            message %= {"code": "%00", "header": where}
            if is_api_path(request.path_info):
                return json_error(ErrorCode.INVALID_INPUT, message, 400)
            return render(request, "400.html", {"message": message}, status=400)


class LockConflictMiddleware:
    """A page (or a view under /api/ outside DRF, whose own handler answers the same) that
    ran into a lock conflict — a deadlock PostgreSQL broke, a lock timeout, SQLite's
    "database is locked" (``apps.core.locking``) — answers 503 with a sentence and
    ``Retry-After`` instead of a server error: nothing was changed, and sending the form
    again works."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not lock_conflict(exception):
            return None
        logger.warning("Lock conflict on %s %s: %s", request.method, request.path, exception)
        message = lock_conflict_message()
        if is_api_path(request.path_info):
            response: HttpResponse = json_error(ApiErrorCode.BUSY, message, 503)
        else:
            response = render(request, "503.html", {"message": message}, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response


class NotFoundPageMiddleware:
    """A view that finds nothing to show (``Http404``: an unpublished stage for the public,
    an unknown group or game) answers with the project's 404 page, under DEBUG too
    (``make run``), where Django would show its technical page listing the addresses. An
    address no route matches still gets Django's page under DEBUG (a developer's typo)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Http404):
            return None
        return page_not_found(request, exception)


def body_length(request: HttpRequest) -> int:
    """The request body's declared length (Django reads no more than that; a body sent
    without a length is read as empty)."""
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


class ApiRequestLimitsMiddleware:
    """Refuses a request whose body breaks the upload limits before any other code reads it.

    Every request, page or API, whatever its content type (a CSV body, a JSON body, a
    multipart form with files): a body longer than ``REQUEST_BODY_MAX_BYTES`` is refused with
    413, unread (Django limits only the form fields of a multipart body, not its files).
    API requests are also checked, in the API's JSON error format, for a body other than a
    multipart one longer than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413), more fields than
    ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` or more files than ``DATA_UPLOAD_MAX_NUMBER_FILES``
    (400 ``too_many_fields``). Bodies DRF parses later (PUT, PATCH) are answered the same way
    by ``apps.core.errorpages``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = is_api_path(request.path_info)
        if body_length(request) > settings.REQUEST_BODY_MAX_BYTES:
            return too_large() if api else too_large_page(request)
        if api:
            refusal = self.check(request)
            if refusal is not None:
                return refusal
        return self.get_response(request)

    def check(self, request: HttpRequest) -> HttpResponse | None:
        content_type = request.META.get("CONTENT_TYPE", "")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if (
            limit is not None
            and not content_type.startswith("multipart/form-data")
            and body_length(request) > limit
        ):
            return too_large()  # what Django would refuse when the body is read
        if request.method != "POST":
            return None
        try:
            # Form bodies: Django parses them here, counting fields, files and bytes (DRF
            # reads the parsed data afterwards); any other body is left unread.
            request.POST  # noqa: B018
        except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent) as error:
            return api_refusal(error)
        except MultiPartParserError as error:
            return json_error(
                ErrorCode.INVALID_INPUT,
                _("The multipart body could not be read (%(reason)s); send it again.")
                % {"reason": error},
                400,
            )
        return None
