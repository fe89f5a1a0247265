"""Middleware of the whole site (listed in ``settings.MIDDLEWARE``)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _

from .api import is_api_path, json_error
from .errorpages import api_refusal, too_large, too_large_page
from .errors import ErrorCode
from .site import remember_site_url


class SiteUrlMiddleware:
    """Records the address each request came in on, for the links of e-mails written later
    (only while ``SITE_URL`` is empty; see ``apps.core.site``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        remember_site_url(request)
        return self.get_response(request)


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
