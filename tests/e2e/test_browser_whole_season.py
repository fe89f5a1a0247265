"""A whole season in a real browser, from an empty site (issue 27's check): the organizer, a
TD and the players, each in a browser context of their own, through the pages and the
e-mails (Django's mail outbox).

The first account is made as ``createsuperuser`` makes it; everything else is done on the
pages: the organizer names itself on the first sign-in, creates the tournament with a
semifinal, imports 54 entrants, compares two formats in the lab on the embedded default (the
in-process worker thread, as ``make run`` starts it: the bar is seen part-way), closes
registration, draws, publishes and invites the TD, who makes the account from the invitation.
Three players claim their entries through the start-list e-mail's link; one reports a result
and the opponent confirms it through the e-mailed link; another report is disputed and the TD
settles the game with a CSV import, which closes the report. The rest of the field's results
come in (simulated), the organizer closes the stage, and a qualification whose count the
semifinal could not draw is refused with the sentence before confirming, then a workable one
is confirmed. A small Swiss tournament is set up the same way and its TD plays two rounds on
the round pages. Screenshots at 1280 and 360 px are saved under SHOTS' directory."""

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command

from apps.entrants.models import Entrant
from apps.groups.models import Game, Group
from apps.office.lab import runs as lab_runs
from apps.results.models import ResultReport
from apps.results.simulate import simulate_results
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from config import inprocess
from config.celery import app
from tests.e2e.conftest import (
    CLAIM_LINK,
    DESKTOP,
    import_results_csv,
    play_round,
    say_yes,
    shoot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "whole-season-pw-29"
SHOT_DIR = Path("/tmp/closed-circle-whole-season")
SHOTS = str(SHOT_DIR / "{page}-{width}.png")  # looked at by people, not compared
GAME_LINK = re.compile(r"https?://[^/\s]+(/t/\S+/games/\d+/)")
# 6 games per player: a closed circle needs at least 27 players (docs/silli.md §7).
TOO_FEW = "6 games per player need groups of at least 27"


def messages_to(address: str) -> list:
    """The e-mails sent to ``address`` (bare, or as "Name <address>")."""
    return [m for m in mail.outbox if any(address in to for to in m.to)]


def link_in(message, pattern: re.Pattern) -> str:
    found = pattern.search(message.body)
    assert found, message.body
    return found.group(1)


def new_page(browser):
    return browser.new_context(viewport=DESKTOP).new_page()


# The worker's first task: it holds the worker until the test has seen the run waiting.
HOLD = threading.Event()


@app.task(name="tests.e2e.whole_season.hold_the_worker")
def hold_the_worker() -> None:
    HOLD.wait(timeout=120)


@contextmanager
def embedded_worker(monkeypatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The in-process worker of the embedded default (config/inprocess.py; ``make run``
    starts it from config/wsgi.py, which the live server does not load), held by two gates,
    so the page is seen at each step without timing anything: the worker waits before the
    lab run's task until the first is opened, and the run waits after its first chunk until
    the second is. (The page's requests then meet the worker's writes only in its progress
    polls, which retry: the tests' SQLite database lives in memory, without the write-ahead
    log that lets readers go on beside a writer under ``make run``.)"""
    HOLD.clear()
    part_way = threading.Event()
    simulate = lab_runs.simulate
    chunks: list[int] = []

    def gated(*args, **kwargs):
        if chunks:
            part_way.wait(timeout=120)
        chunks.append(1)
        return simulate(*args, **kwargs)

    monkeypatch.setattr(lab_runs, "simulate", gated)
    worker = inprocess.InProcessWorker(app, beat=False)
    previous = inprocess.install(worker)
    worker.start()
    hold_the_worker.delay()
    try:
        yield HOLD, part_way
    finally:
        HOLD.set()
        part_way.set()
        worker.stop()
        inprocess.install(previous)
        monkeypatch.setattr(lab_runs, "simulate", simulate)


def create_account(page, username: str, name: str = "") -> None:
    """Fill the account form of a claim or invitation page and send it."""
    if name:
        page.get_by_label("Your name").fill(name)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name=re.compile("Create the account")).click()


def import_and_draw(page, upload: Path, count: int, seed: str, groups: int) -> None:
    """On a stage's dashboard: import the entrants, close registration, draw, publish."""
    from playwright.sync_api import expect

    page.set_input_files("#id_file", str(upload))
    page.get_by_role("button", name="Preview the import").click()
    page.get_by_role("button", name=f"Confirm import of {count} entrants").click()
    expect(page.locator(".messages")).to_contain_text(str(count))
    close_draw_publish(page, seed, groups)


def close_draw_publish(page, seed: str, groups: int) -> None:
    from playwright.sync_api import expect

    page.get_by_role("button", name="Close registration").click()
    expect(page.locator(".messages")).to_contain_text(re.compile(r"SHA-256\): [0-9a-f]{64}"))
    page.fill("#id_seed", seed)
    page.get_by_role("button", name="Start the draw").click()
    expect(page.locator("#draw-progress")).to_contain_text("Done")
    expect(page.locator("#review table.groups tbody tr")).to_have_count(groups)
    page.get_by_role("button", name="Publish").click()
    say_yes(page)
    expect(page.locator(".messages")).to_contain_text("The draw is published")


def assign_td(page, dashboard: str, email: str) -> None:
    """From a stage's dashboard: make ``email`` the TD of group 1."""
    from playwright.sync_api import expect

    page.goto(dashboard)
    page.get_by_role("link", name=re.compile("^Tournament directors")).first.click()
    page.fill("#td-email-1", email)
    page.locator("tr#group-1").get_by_role("button", name="Assign").click()
    say_yes(page)
    expect(page.locator(".messages")).to_be_visible()


def test_a_whole_season_from_an_empty_site(live_server, browser, tmp_path, monkeypatch, settings):
    from playwright.sync_api import expect

    # The invented players' example.org addresses are skipped by default (no mailboxes):
    # here they go to the test's mail outbox like any address.
    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    SHOT_DIR.mkdir(exist_ok=True)
    shots: list[str] = []
    base = live_server.url
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", interactive=False, username="boss", email="b@example.org")
    boss = get_user_model().objects.get(username="boss")
    entrants = make_entrants(54, "whole-season", multi_entry_share=0)
    upload = tmp_path / "entrants.csv"
    upload.write_text(entrants_csv(entrants), encoding="utf-8")

    # -- the organizer: a name on the first sign-in, the tournament, the entrants ---------
    org = new_page(browser)
    org.goto(f"{base}/accounts/login/")
    org.fill("#id_username", "boss")
    org.fill("#id_password", PASSWORD)
    org.get_by_role("button", name="Sign in").click()
    expect(org.locator("#first-name")).to_be_visible()
    org.fill("#id_display_name", "Olga Organizer")
    org.get_by_role("button", name="Save").click()
    expect(org.locator(".topbar .who")).to_have_text("Olga Organizer")

    org.get_by_role("link", name="New tournament").first.click()
    org.fill("#id_name", "Season 2027")
    org.fill("#id_games_per_player", "6")
    org.check("#id_add_semifinal")
    org.get_by_role("button", name="Create the tournament").click()
    expect(org).to_have_url(re.compile(r"/t/season-2027/$"))
    expect(org.locator("table.stages tbody tr")).to_have_count(2)
    org.get_by_role("link", name="Manage").first.click()
    org.set_input_files("#id_file", str(upload))
    org.get_by_role("button", name="Preview the import").click()
    org.get_by_role("button", name="Confirm import of 54 entrants").click()
    expect(org.locator(".messages")).to_contain_text("54")

    # -- the format lab on the embedded default: the request returns, the bar moves ------
    org.get_by_role("link", name="Format lab: compare formats on these entrants").click()
    org.fill("#c1-group_size", "27")
    org.select_option("#c2-format", "round_robin")
    org.fill("#c2-group_size", "10")
    org.fill("#lab-tournaments", "50")
    with embedded_worker(monkeypatch) as (start, part_way):
        org.get_by_role("button", name="Start the run").click()
        expect(org).to_have_url(re.compile(r"/t/season-2027/s/1/lab/\d+/$"))
        progress = org.locator("#lab-progress")
        # the request came back at once: the run waits for the worker
        expect(progress).to_have_attribute("data-finished", "false")
        expect(progress.locator("[data-role=count]")).to_have_text("0 of 100 tournaments")
        expect(progress.locator("[data-role=bar]")).to_have_attribute("value", "0")
        start.set()
        # the bar moves: the first chunk is counted while the second is held (1-99 %)
        expect(progress.locator("[data-role=count]")).to_have_text(
            re.compile(r"^[1-9]\d* of 100 tournaments$")
        )
        expect(progress.locator("[data-role=bar]")).to_have_attribute(
            "value", re.compile(r"^[1-9]\d?$")
        )
        expect(progress.locator("[data-role=status]")).not_to_have_text("Done")
        shots += shoot(org, SHOTS, "lab-part-way")
        part_way.set()
        expect(progress.locator("[data-role=status]")).to_have_text("Done")
        expect(org.locator("table.lab-table")).to_contain_text("Mean rating difference")
    shots += shoot(org, SHOTS, "lab-done")

    # -- close, draw, publish; the TD is invited and makes the account --------------------
    org.goto(f"{base}/t/season-2027/s/1/manage/")
    mail.outbox.clear()
    close_draw_publish(org, "Season 2027 lotto 7 11 23", groups=1)
    shots += shoot(org, SHOTS, "published")
    assign_td(org, f"{base}/t/season-2027/s/1/manage/", "td@example.org")
    [invitation] = messages_to("td@example.org")
    assert "Olga Organizer" in invitation.body
    td = new_page(browser)
    td.goto(base + link_in(invitation, re.compile(r"https?://[^/\s]+(/accounts/invitation/\S+)")))
    shots += shoot(td, SHOTS, "invitation")
    create_account(td, "tomas-td", name="Tomas TD")
    group = Group.objects.get(stage__tournament__slug="season-2027", stage__order=1, number=1)
    expect(td.locator(".topbar .who")).to_have_text("Tomas TD")
    group.refresh_from_db()
    assert group.td is not None and group.td.username == "tomas-td"

    # -- three players claim their entries through the start-list e-mail ---------------
    games = Game.objects.filter(group=group).select_related("white", "black")
    game_a = games.get(number=1)  # Ada (White) - Ben: reported and confirmed
    ada, ben = game_a.white, game_a.black
    game_b = games.filter(black=ada).exclude(white=ben).first()  # Cleo - Ada: disputed
    assert game_b is not None
    cleo = game_b.white
    players = {}
    for entrant, username in ((ada, "ada"), (ben, "ben"), (cleo, "cleo")):
        [start_list] = messages_to(entrant.email)
        page = new_page(browser)
        page.goto(base + link_in(start_list, CLAIM_LINK))
        expect(page.get_by_role("heading", level=1)).to_have_text("Claim your entry")
        if username == "ada":
            shots += shoot(page, SHOTS, "claim")
        create_account(page, username)
        page.goto(f"{base}/me/")
        expect(page.locator("main")).to_contain_text(entrant.name)
        players[username] = page
        assert Entrant.objects.get(pk=entrant.pk).user.username == username
    shots += shoot(players["ada"], SHOTS, "my-games")

    # -- a result reported by Ada, confirmed by Ben through the e-mailed link ---------
    mail.outbox.clear()
    page = players["ada"]
    page.goto(f"{base}{game_path(game_a)}")
    report = page.locator("#report")
    report.get_by_label("Result").select_option("1-0")
    report.get_by_role("button", name="Report", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("is asked to confirm it")
    [asked] = messages_to(ben.email)
    page = players["ben"]
    page.goto(base + link_in(asked, GAME_LINK))
    shots += shoot(page, SHOTS, "game-to-confirm")
    page.get_by_role("button", name="Confirm the result").click()
    expect(page.locator(".messages")).to_contain_text("Confirmed")
    expect(page.locator(".game-result")).to_contain_text("1-0")
    assert ResultReport.objects.get(game=game_a).status == ResultReport.Status.CONFIRMED

    # -- another reported by Cleo, disputed by Ada, settled by the TD's CSV import ------
    mail.outbox.clear()
    page = players["cleo"]
    page.goto(f"{base}{game_path(game_b)}")
    page.locator("#report").get_by_label("Result").select_option("1-0")
    page.locator("#report").get_by_role("button", name="Report", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("is asked to confirm it")
    [asked] = messages_to(ada.email)
    page = players["ada"]
    page.goto(base + link_in(asked, GAME_LINK))
    page.get_by_label("Why is the result wrong?").fill("We agreed a draw on move 31.")
    page.get_by_role("button", name="Dispute it").click()
    expect(page.locator(".messages")).to_be_visible()
    disputed = ResultReport.objects.get(game=game_b)
    assert disputed.status == ResultReport.Status.DISPUTED

    td.goto(f"{base}/me/td/")
    expect(td.locator("main")).to_contain_text("We agreed a draw on move 31.")
    shots += shoot(td, SHOTS, "td-dashboard")
    td.goto(f"{base}{group.get_absolute_url()}results/")
    import_results_csv(td, [f"{cleo.code},{ada.code},1/2-1/2"])
    confirm = td.get_by_role("button", name=re.compile("^Confirm: import 1 game"))
    expect(confirm).to_be_visible()
    shots += shoot(td, SHOTS, "import-preview")
    confirm.click()
    expect(td.locator(".messages")).to_contain_text("Imported: 1 game")
    disputed.refresh_from_db()
    assert disputed.status == ResultReport.Status.SUPERSEDED
    page.goto(f"{base}{game_path(game_b)}")
    expect(page.locator(".game-result")).to_contain_text("½")
    expect(page.locator("tr.report-superseded")).to_contain_text("closed")
    shots += shoot(page, SHOTS, "game-settled")

    # -- the rest of the field plays; the organizer closes the stage and qualifies ------
    stage = Stage.objects.get(tournament__slug="season-2027", order=1)
    simulate_results(boss, stage, share=1.0, withdrawals=0)
    org.goto(f"{base}/t/season-2027/s/1/manage/")
    expect(org.locator("#closing #open-games")).to_have_text("0")
    org.locator("#closing").get_by_role("button", name="Close the stage").click()
    say_yes(org)
    expect(org.locator(".messages")).to_contain_text("The stage is closed")
    org.locator("#closing").get_by_role("link", name="Qualification").click()
    expect(org).to_have_url(re.compile(r"/t/season-2027/s/1/qualification/$"))

    rule = org.locator("#rule-form")
    rule.locator("[name=rule]").select_option("top_overall")
    rule.locator("[name=value]").fill("20")
    rule.get_by_role("button", name="Save the rule").click()
    expect(org.locator(".messages")).to_contain_text("The qualification rule is saved")
    confirming = org.locator("#confirm")
    expect(confirming.locator("[data-role=draw-problem]")).to_contain_text(TOO_FEW)
    expect(confirming.get_by_role("button", name="Confirm the qualifiers")).to_be_disabled()
    shots += shoot(org, SHOTS, "qualification-refused")

    rule = org.locator("#rule-form")
    rule.locator("[name=value]").fill("30")
    rule.get_by_role("button", name="Save the rule").click()
    expect(org.locator("#qualifier-count")).to_have_text("30")
    expect(org.locator("#confirm [data-role=draw-problem]")).to_have_count(0)
    org.locator("#confirm").get_by_role("button", name="Confirm the qualifiers").click()
    say_yes(org)
    expect(org).to_have_url(re.compile(r"/t/season-2027/s/2/manage/$"))
    expect(org.locator(".messages")).to_contain_text("the semifinal has 30 entrants")

    # -- a small Swiss tournament: the TD plays two rounds on the round pages -----------
    swiss_upload = tmp_path / "swiss.csv"
    swiss_upload.write_text(
        entrants_csv(make_entrants(8, "season-swiss", multi_entry_share=0)), encoding="utf-8"
    )
    org.goto(f"{base}/")
    org.get_by_role("link", name="New tournament").first.click()
    org.fill("#id_name", "Season Swiss 2027")
    org.get_by_role("button", name="Create the tournament").click()
    expect(org).to_have_url(re.compile(r"/t/season-swiss-2027/$"))
    org.goto(f"{base}/t/season-swiss-2027/s/1/settings/")
    org.select_option("#id_format", "swiss")
    org.fill("#id_swiss_rounds", "3")
    org.get_by_role("button", name="Save the settings").click()
    expect(org.locator(".messages")).to_be_visible()
    org.goto(f"{base}/t/season-swiss-2027/s/1/manage/")
    import_and_draw(org, swiss_upload, 8, "Swiss lotto 5", groups=1)
    assign_td(
        org, f"{base}/t/season-swiss-2027/s/1/manage/", "td@example.org"
    )  # an account already: the TD at once

    td.goto(f"{base}/t/season-swiss-2027/s/1/g/1/")
    td.locator("nav.group-nav").get_by_role("link", name="Rounds").click()
    expect(td.get_by_role("heading", level=1)).to_contain_text("Round 1 of 3")
    play_round(td, 1)
    expect(td.locator("#standings")).to_contain_text("Standings after round 1")
    td.locator("nav.round-nav").get_by_role("link", name="2", exact=True).click()
    expect(td.get_by_role("heading", level=1)).to_contain_text("Round 2 of 3")
    play_round(td, 2)
    expect(td.locator("#standings")).to_contain_text("Standings after round 2")
    shots += shoot(td, SHOTS, "swiss-round-2")
    swiss = Group.objects.get(stage__tournament__slug="season-swiss-2027", number=1)
    assert not Game.objects.filter(group=swiss, round__in=[1, 2], result="").exists()

    print("\nScreenshots:\n" + "\n".join(shots))


def game_path(game) -> str:
    return f"{game.group.get_absolute_url()}games/{game.number}/"
