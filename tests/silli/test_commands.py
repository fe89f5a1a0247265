"""The offline engine commands, run as an operator would (docs/interfaces.md §2)."""

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.silli.entrants import Entrant, entrants_csv


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def silli_draw(entrants, out, seed, *options):
    """``silli_draw`` with 10 games per player."""
    args = ["--entrants", str(entrants), "--games", "10", "--seed", seed, "--out", str(out)]
    return run("silli_draw", *args, *options)


@pytest.fixture(scope="module")
def cup(tmp_path_factory):
    """make_entrants --count 3099, then silli_draw --games 10."""
    folder = tmp_path_factory.mktemp("cup")
    entrants, draw = folder / "entrants.csv", folder / "DRAW.json"
    run("make_entrants", "--count", "3099", "--seed", "cup", "--out", str(entrants))
    silli_draw(entrants, draw, "lotto-17")
    return entrants, draw


def test_silli_formula_json():
    data = json.loads(run("silli_formula", "103", "--games", "10", "--json"))
    assert data == {
        "n": 103,
        "games": 10,
        "formula": [1, 4, 10, 17, 29],
        "rule": "natural",
        "valid": True,
        "violations": [],
        "violation_count": 0,
        "relations": [],
    }
    assert json.loads(run("silli_formula", "104", "--games", "10", "--json"))["rule"] == "reserve"


def test_silli_formula_text_shows_the_certificate():
    text = run("silli_formula", "103", "--games", "10")
    assert "1.4.10.17.29 (first natural formula)" in text
    assert "principle 1" in text and "seat 1: White 2, 5, 11, 18, 30" in text


def test_silli_formula_checks_a_given_formula_and_lists_violations():
    out = StringIO()
    with pytest.raises(CommandError) as err:
        call_command(
            "silli_formula",
            "104",
            "--games",
            "10",
            "--formula",
            "1,4,10,17,29",
            "--json",
            stdout=out,
        )
    assert err.value.returncode == 2 and "seats 1 and 47" in str(err.value)
    data = json.loads(out.getvalue())
    assert (data["rule"], data["valid"]) == ("given", False)
    assert data["violations"][0] == {
        "rule": "principle 2",
        "seats": [1, 47],
        "common": [18, 30, 76],
    }
    assert "32" in run("silli_formula", "104", "--games", "10", "--formula", "1.4.10.17.32")


def test_silli_formula_none_exists_exits_2_with_a_sentence():
    with pytest.raises(CommandError) as err:
        run("silli_formula", "72", "--games", "10")
    assert err.value.returncode == 2
    assert "No valid 10-game formula exists for a closed circle of 72 seats" in str(err.value)
    assert "round robin" in str(err.value)


def test_3099_entrants_give_9_groups_of_104_and_21_of_103_and_verify(cup):
    entrants, draw = cup
    data = json.loads(draw.read_text())
    assert Counter(g["size"] for g in data["groups"]) == {104: 9, 103: 21}
    assert [g["size"] for g in data["groups"]] == [104] * 9 + [103] * 21
    assert data["games_per_player"] == 10 and data["seed"] == "lotto-17"
    assert "verified" in run("silli_verify", str(draw), "--entrants", str(entrants))


def test_same_inputs_byte_identical_other_seed_other_draw(cup, tmp_path):
    entrants, draw = cup
    again, other = tmp_path / "again.json", tmp_path / "other.json"
    silli_draw(entrants, again, "lotto-17")
    silli_draw(entrants, other, "lotto-18")
    assert again.read_bytes() == draw.read_bytes()
    assert json.loads(other.read_text())["digest"] != json.loads(draw.read_text())["digest"]


@pytest.mark.parametrize("tamper", ["swap_seats", "edit_digest", "drop_game"])
def test_tampered_draw_fails_verification(cup, tmp_path, tamper):
    entrants, draw = cup
    data = json.loads(draw.read_text())
    group = data["groups"][4]
    if tamper == "swap_seats":
        a, b = group["seats"][0], group["seats"][1]
        a["entrant"], b["entrant"] = b["entrant"], a["entrant"]
    elif tamper == "edit_digest":
        data["digest"] = "0" * 64
    else:
        group["games"].pop()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(CommandError) as err:
        run("silli_verify", str(bad), "--entrants", str(entrants))
    assert err.value.returncode == 1


def test_impossible_draw_exits_2_names_group_nation_count_bound_and_writes_nothing(tmp_path):
    others = "GER RUS USA POL CZE ESP FRA NED ENG BRA ARG SWE".split()
    people = [Entrant(f"I{i:03d}", "x", "ITA") for i in range(40)]
    people += [Entrant(f"O{i:03d}", "y", others[i % len(others)]) for i in range(64)]
    source = tmp_path / "entrants.csv"
    source.write_text(entrants_csv(people))
    out = tmp_path / "DRAW.json"
    with pytest.raises(CommandError) as err:
        silli_draw(source, out, "s")
    assert err.value.returncode == 2
    message = str(err.value)
    assert "Group 1 (104 seats, 10 games per player): nation ITA has 40 entrants" in message
    assert "bound of" in message and "Nothing was written" in message
    assert not out.exists() and list(tmp_path.iterdir()) == [source]


def test_bad_entrant_file_lists_every_bad_row(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text("code,name,nation,rating\nA1,Ann,ITA,2100\nA2,,ITA,x\nA1,Bob,it,\n")
    with pytest.raises(CommandError) as err:
        silli_draw(source, tmp_path / "d.json", "s")
    text = str(err.value)
    assert err.value.returncode == 2
    assert "line 3: name is required; rating 'x' is not a whole number" in text
    assert "line 4:" in text and "duplicate code 'A1'" in text and "not a 3-letter" in text


def test_met_before_pairs_are_kept_apart_and_verified(tmp_path):
    run("make_entrants", "--count", "630", "--seed", "semi", "--out", str(tmp_path / "e.csv"))
    codes = [line.split(",")[0] for line in (tmp_path / "e.csv").read_text().splitlines()[1:]]
    pairs = "a,b\n" + "".join(f"{codes[i]},{codes[i + 1]}\n" for i in range(0, 600, 2))
    (tmp_path / "met.csv").write_text(pairs)
    silli_draw(
        tmp_path / "e.csv", tmp_path / "d.json", "semi", "--met-before", str(tmp_path / "met.csv")
    )
    data = json.loads((tmp_path / "d.json").read_text())
    assert [g["size"] for g in data["groups"]] == [105] * 6
    met = {frozenset((codes[i], codes[i + 1])) for i in range(0, 600, 2)}
    assert not any(
        frozenset((x["white"], x["black"])) in met for g in data["groups"] for x in g["games"]
    )
    assert "verified" in run(
        "silli_verify",
        str(tmp_path / "d.json"),
        "--entrants",
        str(tmp_path / "e.csv"),
        "--met-before",
        str(tmp_path / "met.csv"),
    )
    with pytest.raises(CommandError):
        run("silli_verify", str(tmp_path / "d.json"), "--entrants", str(tmp_path / "e.csv"))
