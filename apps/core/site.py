"""The address of the site, for links in e-mails (which tasks write, outside any request).

``SITE_URL`` when it is set. Otherwise the address the site was last reached on: the
:class:`~apps.core.middleware.SiteUrlMiddleware` records the scheme and host (with the port)
of each request in the default cache, which web processes and workers share in production
(``CACHE_URL``) and which is this process's memory in the embedded default, where tasks run
in-process. Before any request was seen: ``http://127.0.0.1:8000``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest

SITE_URL_CACHE_KEY = "site-url"
FALLBACK_SITE_URL = "http://127.0.0.1:8000"


def request_site_url(request: HttpRequest) -> str | None:
    """``scheme://host[:port]`` of ``request``; None when its host is not an allowed one."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    return f"{request.scheme}://{host}"


def remember_site_url(request: HttpRequest) -> None:
    """Record the address ``request`` came in on (unless ``SITE_URL`` fixes it)."""
    if settings.SITE_URL:
        return
    url = request_site_url(request)
    if url is not None and cache.get(SITE_URL_CACHE_KEY) != url:
        cache.set(SITE_URL_CACHE_KEY, url, timeout=None)


def site_url() -> str:
    """The site's address without a trailing slash: ``SITE_URL``, else the last one seen."""
    if settings.SITE_URL:
        return settings.SITE_URL.rstrip("/")
    return str(cache.get(SITE_URL_CACHE_KEY) or FALLBACK_SITE_URL).rstrip("/")


def absolute_url(path: str) -> str:
    """``path`` (e.g. from ``reverse``) as a full link for an e-mail."""
    return site_url() + path
