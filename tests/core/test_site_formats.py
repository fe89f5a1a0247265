"""How the site writes dates, times and numbers (issue 27): 24-hour times (a sentence
ending with a time read "a.m.."), Italian dates in lower case and without the weekday
("il Domenica 27 Dicembre" read wrong), counts grouped as the language writes them; and a
view's 404 under DEBUG is the project's page, not Django's technical one."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, number_format

from tests.worlds.pages import *  # noqa: F403

SUNDAY = datetime(2026, 12, 27, 10, 5, tzinfo=UTC)


def test_english_times_are_24_hour_so_no_sentence_ends_in_a_m_dot_dot():
    with translation.override("en"):
        written = date_format(SUNDAY, "DATETIME_FORMAT")
        assert written == "Dec. 27, 2026, 10:05"
        assert "a.m." not in f"Round 2 ends on {written}."
        assert date_format(SUNDAY, "TIME_FORMAT") == "10:05"


def test_italian_dates_are_lower_case_without_the_weekday():
    with translation.override("it"):
        assert date_format(date(2026, 12, 27), "DATE_FORMAT") == "27 dicembre 2026"
        assert date_format(SUNDAY, "DATETIME_FORMAT") == "27 dicembre 2026, 10:05"
        assert date_format(date(2026, 12, 27), "l j F") == "domenica 27 dicembre"
        assert "Domenica" not in date_format(SUNDAY, "DATETIME_FORMAT")


@pytest.mark.parametrize(("language", "written"), [("en", "3,099"), ("it", "3.099")])
def test_counts_are_grouped_alike_in_templates_and_in_python(language, written):
    with translation.override(language):
        page = Template("{% load humanize %}{{ n|intcomma }}").render(Context({"n": 3099}))
        assert page == written == number_format(3099, force_grouping=True)


@pytest.mark.django_db
def test_an_unpublished_stage_is_the_projects_404_page_under_debug(client, settings, cup):
    settings.DEBUG = True
    stage = cup.first_stage
    answer = client.get(reverse("stage", args=[cup.slug, stage.order]))
    assert answer.status_code == 404
    page = answer.content.decode()
    assert "There is no such page, or it is not public yet." in page
    assert "Using the URLconf" not in page  # Django's technical 404
