"""The stage page lists its groups a page at a time; the certificate summary counts them all."""

from django.urls import reverse

from apps.office import views
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)


def test_the_stage_page_lists_its_groups_a_page_at_a_time(client, published_stage, monkeypatch):
    monkeypatch.setattr(views, "GROUPS_PER_PAGE", 2)
    url = reverse("stage", args=[published_stage.tournament.slug, published_stage.order])
    groups = published_stage.groups.count()
    assert groups == 3
    first = client.get(url).content.decode()
    assert "All 3 certificates hold" in first
    assert first.count('<td class="num"><a href="/t/') == 2
    assert 'href="?page=2" rel="next"' in first and "Page 1 of 2" in first
    second = client.get(url + "?page=2").content.decode()
    assert second.count('<td class="num"><a href="/t/') == 1
    assert "All 3 certificates hold" in second and 'rel="prev"' in second
    assert client.get(url + "?page=99").status_code == 200  # the last page


def test_the_stage_page_counts_the_games_the_draw_wrote(client, published_stage):
    """The count comes from the groups' sizes (no reading of every game): it must agree."""
    import re

    from apps.groups.models import Game

    page = client.get(reverse("stage", args=["web-cup", 1])).content.decode()
    shown = re.search(r"Games</dt><dd>([\d,]+)</dd>", page).group(1)
    assert int(shown.replace(",", "")) == Game.objects.filter(group__stage=published_stage).count()
