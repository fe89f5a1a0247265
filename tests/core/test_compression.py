"""Responses are gzip-compressed for clients that accept it (GZipMiddleware), streamed
downloads stay streamed, and the CSRF token differs in every page (why BREACH cannot read it;
see the MIDDLEWARE comment in config/settings.py)."""

import gzip
import json
import re

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import reverse

from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_gzip_comes_before_every_middleware_that_makes_or_reads_the_body():
    middleware = settings.MIDDLEWARE
    gzip_at = middleware.index("django.middleware.gzip.GZipMiddleware")
    # Only these come first: HTTPS redirects, and WhiteNoise's static files (compressed once
    # by collectstatic; WhiteNoise is there when DEBUG is off).
    assert middleware[0] == "django.middleware.security.SecurityMiddleware"
    assert set(middleware[1:gzip_at]) <= {"whitenoise.middleware.WhiteNoiseMiddleware"}


def test_a_page_is_compressed_for_a_client_that_accepts_gzip(client, published_stage):
    url = published_stage.get_absolute_url()
    plain = client.get(url)
    packed = client.get(url, **GZIP)
    assert plain.status_code == packed.status_code == 200
    assert not plain.has_header("Content-Encoding")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"] and "Accept-Encoding" in plain["Vary"]
    page = gzip.decompress(packed.content).decode()
    assert "<h1" in page and len(packed.content) < len(plain.content) / 3
    assert int(packed["Content-Length"]) == len(packed.content)


def test_json_is_compressed(client, published_stage):
    answer = client.get(f"/api/groups/?stage={published_stage.pk}&page_size=500", **GZIP)
    assert answer["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(answer.content))["count"] == 3


def test_the_streamed_pgn_download_stays_streamed_and_compressed(client, published_stage):
    url = reverse("api-stage-games-pgn", args=[published_stage.pk])
    plain = client.get(url)
    packed = client.get(url, **GZIP)
    assert isinstance(packed, StreamingHttpResponse) and packed.streaming
    assert packed["Content-Encoding"] == "gzip"
    assert not packed.has_header("Content-Length")
    chunks = list(packed.streaming_content)
    assert len(chunks) > 1  # sent piece by piece, not gathered first
    assert gzip.decompress(b"".join(chunks)) == b"".join(plain.streaming_content)


def test_every_page_carries_a_different_csrf_token(client, published_stage):
    """Django masks the CSRF token with a new random mask in every response, so no two
    compressed pages share it: what BREACH needs to guess it."""
    url = reverse("login")
    tokens = set()
    for _ in range(3):
        page = client.get(url, **GZIP)
        html = gzip.decompress(page.content).decode()
        tokens.update(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))
    assert len(tokens) >= 3
