"""Django's error handlers (``handler400`` … ``handler500`` in ``config/urls.py``): under
/api/ every error is the API's JSON ``{code, message, details}``, elsewhere the HTML page.

Django calls these for what escapes every view and middleware: a bug (500), a request body
larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django says 400, the API 413), too many fields
(``DATA_UPLOAD_MAX_NUMBER_FIELDS``), a ``PermissionDenied`` or ``Http404`` raised outside DRF.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.views import defaults

from .api import ApiErrorCode, is_api_path, json_error
from .errors import ErrorCode

REQUEST_TOO_LARGE = 413


def too_large() -> HttpResponse:
    limit = min(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0, settings.REQUEST_BODY_MAX_BYTES)
    return json_error(
        ApiErrorCode.REQUEST_TOO_LARGE,
        _(
            "The request body is too large: the API accepts at most %(limit)s in one request. "
            "Send less at a time (split a large file into several requests)."
        )
        % {"limit": filesizeformat(limit)},
        REQUEST_TOO_LARGE,
    )


def too_large_page(request: HttpRequest) -> HttpResponse:
    """The page's answer to an upload larger than ``REQUEST_BODY_MAX_BYTES``."""
    limit = filesizeformat(settings.REQUEST_BODY_MAX_BYTES)
    return render(request, "413.html", {"limit": limit}, status=REQUEST_TOO_LARGE)


def too_many_fields(files: bool = False) -> HttpResponse:
    if files:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        message = _("The request has more than %(limit)s files; send fewer files in one request.")
    else:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        message = _(
            "The request has more than %(limit)s fields; send fewer fields in one request, "
            "or send the data as JSON or as a file."
        )
    return json_error(ApiErrorCode.TOO_MANY_FIELDS, message % {"limit": limit}, 400)


def api_refusal(exception: BaseException | None) -> HttpResponse | None:
    """The API's answer to an exception about the request body, or None for any other."""
    if isinstance(exception, RequestDataTooBig):
        return too_large()
    if isinstance(exception, TooManyFilesSent):
        return too_many_fields(files=True)
    if isinstance(exception, TooManyFieldsSent):
        return too_many_fields()
    return None


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_path(request.path_info):
        return defaults.bad_request(request, exception)
    return api_refusal(exception) or json_error(
        ErrorCode.INVALID_INPUT,
        _("The request could not be read; check its headers and body and send it again."),
        400,
    )


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_path(request.path_info):
        return defaults.permission_denied(request, exception)
    message = str(exception) or _("You are not allowed to do this.")
    return json_error(ErrorCode.PERMISSION_DENIED, message, 403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_path(request.path_info):
        return defaults.page_not_found(request, exception)
    return json_error(
        ErrorCode.NOT_FOUND,
        _("There is nothing at %(path)s. The endpoints are listed at /api/docs/.")
        % {"path": request.path},
        404,
    )


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api_path(request.path_info):
        return defaults.server_error(request)
    return json_error(
        ApiErrorCode.SERVER_ERROR,
        _(
            "Something went wrong on the server; the error was logged. Try again later, and "
            "tell the site's staff if it keeps happening."
        ),
        500,
    )
