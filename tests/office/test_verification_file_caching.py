"""A stage's verification files (DRAW.json, entrants.csv …): stored once at publication,
served with ETag, Last-Modified and Cache-Control, and answered 304 when unchanged."""

import gzip
import hashlib
from unittest import mock

import pytest
from django.utils.http import http_date

from apps.groups.models import PublishedFile
from apps.office import publication
from apps.office.services import publish_draw
from apps.office.tasks import store_published_files
from apps.office.views import PUBLISHED_FILES_MAX_AGE
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

NAMES = ["DRAW.json", "entrants.csv", "met-before.csv", "earlier-groups.csv"]


def url(stage, name):
    return f"/t/{stage.tournament.slug}/s/{stage.order}/files/{name}"


def etag_of(content: bytes) -> str:
    return f'W/"{hashlib.sha256(content).hexdigest()}"'


def no_build(stage):
    raise AssertionError("the file was built again")


@pytest.mark.parametrize("name", NAMES)
def test_a_published_file_has_validators_and_may_be_cached(client, published_stage, name):
    answer = client.get(url(published_stage, name))
    assert answer.status_code == 200
    assert answer.content.decode() == publication.FILES[name][1](published_stage)
    assert answer["ETag"] == etag_of(answer.content)
    assert answer["Last-Modified"] == http_date(published_stage.published_at.timestamp())
    cache_control = {part.strip() for part in answer["Cache-Control"].split(",")}
    assert cache_control == {"public", f"max-age={PUBLISHED_FILES_MAX_AGE}"}
    assert "Accept-Encoding" in answer["Vary"]
    assert answer["Content-Disposition"].startswith("attachment;")


def test_a_published_file_is_built_once(client, published_stage):
    first = client.get(url(published_stage, "DRAW.json"))
    stored = PublishedFile.objects.get(stage=published_stage, name="DRAW.json")
    assert stored.sha256 == hashlib.sha256(first.content).hexdigest()
    assert stored.size == len(first.content) > len(stored.content_gzip) * 3
    with mock.patch.dict(publication.FILES, {"DRAW.json": ("application/json", no_build)}):
        again = client.get(url(published_stage, "DRAW.json"))
    assert again.status_code == 200 and again.content == first.content


def test_an_unchanged_file_is_answered_304_without_building_or_reading_it(
    client, published_stage, django_assert_max_num_queries
):
    first = client.get(url(published_stage, "DRAW.json"))
    strong = first["ETag"].removeprefix("W/")
    for headers in (
        {"HTTP_IF_NONE_MATCH": first["ETag"]},
        {"HTTP_IF_NONE_MATCH": strong},  # as a cache may send it back
        {"HTTP_IF_MODIFIED_SINCE": first["Last-Modified"]},
    ):
        with mock.patch.dict(publication.FILES, {"DRAW.json": ("application/json", no_build)}):
            with django_assert_max_num_queries(2):  # the stage, the stored file's digest
                answer = client.get(url(published_stage, "DRAW.json"), **headers)
        assert answer.status_code == 304, headers
        assert answer.content == b""
        assert answer["ETag"] == first["ETag"]
        assert answer["Cache-Control"] == first["Cache-Control"]
    changed = client.get(url(published_stage, "DRAW.json"), HTTP_IF_NONE_MATCH='W/"other"')
    assert changed.status_code == 200 and changed.content == first.content


def test_a_client_that_accepts_gzip_gets_the_stored_bytes(client, published_stage):
    plain = client.get(url(published_stage, "entrants.csv"))
    packed = client.get(url(published_stage, "entrants.csv"), HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert packed.content == bytes(
        PublishedFile.objects.get(stage=published_stage, name="entrants.csv").content_gzip
    )
    assert gzip.decompress(packed.content) == plain.content
    assert packed["ETag"] == plain["ETag"]


def test_publishing_stores_every_file_once(
    drawn_stage, organizer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        publish_draw(organizer, drawn_stage)
    stored = dict(PublishedFile.objects.filter(stage=drawn_stage).values_list("name", "sha256"))
    assert sorted(stored) == sorted(NAMES)
    drawn_stage.refresh_from_db()
    assert (
        stored["DRAW.json"]
        == hashlib.sha256(publication.draw_file(drawn_stage).encode()).hexdigest()
    )
    # The task again (a retry, a redelivery) builds nothing and stores nothing twice.
    with mock.patch.dict(publication.FILES, {name: ("text/csv", no_build) for name in NAMES}):
        assert store_published_files(drawn_stage.pk) == 4
    assert PublishedFile.objects.filter(stage=drawn_stage).count() == 4


def test_a_file_stored_from_something_else_is_built_again(client, published_stage):
    client.get(url(published_stage, "entrants.csv"))
    PublishedFile.objects.filter(stage=published_stage).update(
        version="an older format", sha256="0" * 64, content_gzip=gzip.compress(b"stale")
    )
    answer = client.get(url(published_stage, "entrants.csv"))
    assert answer.content.decode() == publication.public_entrants_csv(published_stage)
    assert answer["ETag"] == etag_of(answer.content)


def test_an_unpublished_draw_is_not_stored_nor_cached(organizer_client, drawn_stage):
    answer = organizer_client.get(url(drawn_stage, "DRAW.json"))
    assert answer.status_code == 200
    assert answer["ETag"] == etag_of(answer.content)
    assert {p.strip() for p in answer["Cache-Control"].split(",")} == {"private", "no-cache"}
    assert not answer.has_header("Last-Modified")
    again = organizer_client.get(url(drawn_stage, "DRAW.json"), HTTP_IF_NONE_MATCH=answer["ETag"])
    assert again.status_code == 304
    assert not PublishedFile.objects.exists()
    assert store_published_files(drawn_stage.pk) == 0
