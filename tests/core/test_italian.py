"""The site in English and Italian: the browser's Accept-Language chooses, the switcher in the
footer overrides it (a cookie kept for a year), English stays the default; the Italian catalogue
is complete, has no fuzzy entries and its compiled .mo matches the .po."""

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.worlds.italian import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.italian import PASSWORD

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES"
ITALIAN = {"HTTP_ACCEPT_LANGUAGE": "it-IT,it;q=0.9,en;q=0.5"}
SET_LANGUAGE = "/i18n/setlang/"


def page_urls(stage) -> dict[str, str]:
    """Every public page of a published stage, by name."""
    slug, order = stage.tournament.slug, stage.order
    return {
        "home": reverse("home"),
        "tournament": reverse("tournament", args=[slug]),
        "stage": reverse("stage", args=[slug, order]),
        "group": reverse("group", args=[slug, order, 1]),
        "standings": reverse("group-standings", args=[slug, order, 1]),
        "crosstable": reverse("group-crosstable", args=[slug, order, 1]),
        "ranking": reverse("stage-ranking", args=[slug, order]),
        "find": reverse("find-player", args=[slug]) + "?q=a",
    }


# What each page says in Italian, and English words that must not be left on it.
ITALIAN_TEXT = {
    "home": ["Tornei", "Preliminari", "Pubblicata", "Iscritti"],
    "tournament": ["Fasi", "Partite per giocatore", "Spareggi tecnici", "Cerchio chiuso Silli"],
    "stage": ["Gironi", "Verifica questo sorteggio", "Impronta del sorteggio (SHA-256)"],
    "group": ["Girone 1", "Lista di partenza", "Posto", "Avversari"],
    "standings": ["Classifica", "Posizione", "Punti", "Partite"],
    "crosstable": ["Tabellone", "Col Bianco", "Col Nero", "Punteggio"],
    "ranking": ["Classifica", "Le parità si spareggiano con il sistema"],
    "find": ["Trova un giocatore", "Colore", "Avversario"],
}
ENGLISH_TEXT = {
    "home": ["Tournaments", "Preliminary", "Published"],
    "tournament": ["Stages", "Games per player", "Tie-breaks"],
    "stage": ["Groups", "Verify this draw"],
    "group": ["Group 1", "Start list", "Seat", "Opponents"],
    "standings": ["Standings", "Place", "Points"],
    "crosstable": ["Crosstable", "With White", "With Black"],
    "ranking": ["Ranking", "Ties are broken by"],
    "find": ["Find a player", "Colour", "Opponent"],
}


def visible_text(html: str) -> str:
    """The page without its tags, so attribute values and markup do not count as text."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_without_accept_language_every_page_is_english(client, published_stage):
    for name, url in page_urls(published_stage).items():
        response = client.get(url)
        assert response.status_code == 200, name
        html = response.content.decode()
        assert '<html lang="en">' in html, name
        text = visible_text(html)
        for words in ENGLISH_TEXT[name]:
            assert words in text, (name, words)


def test_an_italian_browser_gets_every_page_in_italian(client, published_stage):
    for name, url in page_urls(published_stage).items():
        response = client.get(url, **ITALIAN)
        assert response.status_code == 200, name
        assert response["Content-Language"] == "it"
        assert "Accept-Language" in response["Vary"]
        html = response.content.decode()
        assert '<html lang="it">' in html, name
        text = visible_text(html)
        for words in ITALIAN_TEXT[name]:
            assert words in text, (name, words)
        for words in ENGLISH_TEXT[name]:
            assert words not in text, (name, words)


def test_the_start_list_names_colours_with_italian_letters(client, published_stage):
    text = visible_text(client.get(page_urls(published_stage)["group"], **ITALIAN).content.decode())
    assert "B: i posti che questo giocatore incontra col Bianco; N: col Nero." in text
    english = visible_text(client.get(page_urls(published_stage)["group"]).content.decode())
    assert "W: the seats this player meets with White; B: with Black." in english


def test_the_switcher_chooses_italian_over_the_browser_and_back(client, published_stage):
    home = reverse("home")
    response = client.post(SET_LANGUAGE, {"language": "it", "next": home})
    assert response.status_code == 302 and response["Location"] == home
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "it"
    assert int(cookie["max-age"]) == settings.LANGUAGE_COOKIE_AGE >= 300 * 24 * 3600
    html = client.get(home).content.decode()
    assert '<html lang="it">' in html and "Tornei" in html

    # The cookie wins over the browser's language, in both directions.
    client.post(SET_LANGUAGE, {"language": "en", "next": home})
    html = client.get(home, **ITALIAN).content.decode()
    assert '<html lang="en">' in html and "Tournaments" in html


def test_the_footer_switcher_posts_to_set_language_and_marks_the_current_language(client, db):
    html = client.get(reverse("home"), **ITALIAN).content.decode()
    form = re.search(r'<form method="post" action="/i18n/setlang/".*?</form>', html, re.S)
    assert form is not None
    assert 'name="next" value="/"' in form[0]
    assert re.search(r'value="it" lang="it"[^>]*aria-current="true" disabled>Italiano<', form[0])
    assert re.search(r'value="en" lang="en"[^>]*>English<', form[0])
    assert "Lingua:" in form[0]


def test_a_signed_in_users_choice_outlives_signing_out_and_in(client, organizer, published_stage):
    assert client.login(username=organizer.username, password=PASSWORD)
    client.post(SET_LANGUAGE, {"language": "it", "next": "/"})
    client.post(reverse("logout"))
    assert client.login(username=organizer.username, password=PASSWORD)
    manage = reverse("stage-manage", args=[published_stage.tournament.slug, 1])
    text = visible_text(client.get(manage).content.decode())
    assert "Iscrizioni" in text and "Pubblica" in text


def test_a_refused_action_is_explained_in_italian(client, organizer, published_stage):
    client.force_login(organizer)
    client.post(SET_LANGUAGE, {"language": "it", "next": "/"})
    publish = reverse("stage-publish", args=[published_stage.tournament.slug, 1])
    page = client.post(publish, follow=True).content.decode()
    assert "Impossibile pubblicare: lo stato della fase è “pubblicata”." in page


def test_api_errors_follow_accept_language_and_stay_english_by_default(client, db):
    url = "/api/stages/999999/"
    english = client.get(url).json()
    assert english["message"].startswith("There is no stage 999999")
    italian = client.get(url, **ITALIAN).json()
    assert italian["code"] == english["code"] == "not_found"
    assert italian["message"].startswith("La fase 999999 non esiste")


# ---------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------


def po_entries(path: Path) -> list[dict]:
    """The entries of a .po file (header and obsolete entries left out)."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = [line for line in block.splitlines() if line and not line.startswith("#~")]
        entry: dict = {"flags": set(), "msgstr": {}}
        field = None
        for line in lines:
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                value = ast.literal_eval(line)
                if isinstance(field, int):
                    entry["msgstr"][field] += value
                else:
                    entry[field] += value
            else:
                keyword, _, value = line.partition(" ")
                match = re.fullmatch(r"msgstr\[(\d)\]", keyword)
                field = int(match[1]) if match else (0 if keyword == "msgstr" else keyword)
                if isinstance(field, int):
                    entry["msgstr"][field] = ast.literal_eval(value)
                else:
                    entry[field] = ast.literal_eval(value)
        if entry.get("msgid"):
            entries.append(entry)
    return entries


def test_every_italian_message_is_translated_and_none_is_fuzzy():
    entries = po_entries(LOCALE / "django.po")
    assert len(entries) > 300
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e["flags"]]
    empty = [e["msgid"] for e in entries if not all(e["msgstr"].values())]
    assert fuzzy == []
    assert empty == []
    assert all(len(e["msgstr"]) == 2 for e in entries if "msgid_plural" in e)


def test_the_compiled_catalogue_matches_the_po_file():
    with open(LOCALE / "django.mo", "rb") as mo:
        catalogue = gettext.GNUTranslations(mo)
    for entry in po_entries(LOCALE / "django.po"):
        context = entry.get("msgctxt")
        if "msgid_plural" in entry:
            for n, form in ((1, 0), (2, 1)):
                if context:
                    found = catalogue.npgettext(context, entry["msgid"], entry["msgid_plural"], n)
                else:
                    found = catalogue.ngettext(entry["msgid"], entry["msgid_plural"], n)
                assert found == entry["msgstr"][form], entry["msgid"]
        elif context:
            assert catalogue.pgettext(context, entry["msgid"]) == entry["msgstr"][0]
        else:
            assert catalogue.gettext(entry["msgid"]) == entry["msgstr"][0], entry["msgid"]


def test_python_format_placeholders_are_kept_in_every_translation():
    placeholder = re.compile(r"%\((\w+)\)[sdr]|\{(\w+)\}")
    for entry in po_entries(LOCALE / "django.po"):
        wanted = set(placeholder.findall(entry.get("msgid_plural", entry["msgid"])))
        for form, text in entry["msgstr"].items():
            if form == 0 and "msgid_plural" in entry:
                continue  # the singular may say "one" instead of the count
            assert set(placeholder.findall(text)) == wanted, entry["msgid"]
