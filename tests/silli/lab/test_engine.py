"""Runs of the format lab: determinism, the formats, the measures, the command."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.silli.entrants import entrants_csv
from apps.silli.lab import (
    LabConfig,
    LabReport,
    RoundRobinFormat,
    SilliFormat,
    SwissFormat,
    parse_field,
    parse_qualification,
    run,
    simulate,
)
from apps.silli.lab.engine import finish
from apps.silli.lab.formats import FormatError, play
from apps.silli.swiss.acceleration import Acceleration
from apps.silli.synth import make_entrants

KEYS = {
    "share_rating_diff_over",
    "mean_opponent_diff",
    "max_opponent_diff",
    "sum_pos_jump",
    "max_pos_jump",
    "expectation",
}


def lab(*args):
    out = StringIO()
    call_command("format_lab", *args, stdout=out)
    return out.getvalue()


def swiss_config(seed="s", acceleration=Acceleration.NONE, field="model1:108"):
    return LabConfig(parse_field(field), SwissFormat(9, acceleration), seed)


def test_same_seed_same_report_other_seed_other_report():
    one = json.dumps(run(swiss_config(), 6).to_json())
    assert json.dumps(run(swiss_config(), 6).to_json()) == one
    assert json.dumps(run(swiss_config("t"), 6).to_json()) != one


def test_a_run_split_in_parts_gives_the_same_report():
    config = LabConfig(
        parse_field("model1:250"), SilliFormat(100, 6), "parts", parse_qualification("top:20%")
    )
    whole = run(config, 5)
    tally = simulate(config, 0, 2)
    tally.merge(simulate(config, 2, 3))
    tally.merge(simulate(config, 3, 5))
    assert finish(config, tally) == whole


@pytest.mark.parametrize(
    "fmt", [SilliFormat(100, 6), RoundRobinFormat(12, double=True), SwissFormat(5, engine="exact")]
)
def test_a_report_reads_back_from_its_json(fmt):
    """The JSON the product stores (``LabRun.results``) gives back the same typed report."""
    config = LabConfig(parse_field("model1:120"), fmt, "json", parse_qualification("top:25%"))
    report = run(config, 2)
    stored = json.loads(json.dumps(report.to_json()))
    assert LabReport.from_json(stored) == report
    assert LabReport.from_json(stored).to_json() == stored


def test_swiss_measures():
    report = run(swiss_config(), 10).to_json()
    assert KEYS <= report.keys()
    shares = list(report["share_rating_diff_over"].values())
    assert list(report["share_rating_diff_over"]) == [str(t) for t in range(200, 801, 50)]
    assert shares == sorted(shares, reverse=True) and 0 < shares[0] < 1
    assert report["games_per_tournament"] == 54 * 9
    assert report["calendar"] == {"rounds": 9}
    by_round = report["opponent_diff_by_round"]
    assert len(by_round) == 9 and report["max_opponent_diff"] == max(by_round) == by_round[0]
    assert min(by_round) <= report["mean_opponent_diff"] <= max(by_round)
    assert 0.5 < report["expectation"] < 1
    rows = report["score_by_rank"]
    assert len(rows) == 108 and rows[0]["mean"] > rows[-1]["mean"]
    assert sum(r["mean"] for r in rows) == pytest.approx(54 * 9, abs=0.05)
    assert sum(r["elo_expected"] for r in rows) == pytest.approx(54 * 9, abs=0.05)
    assert len(report["top_rated"]) == 10 and report["top_rated"][0]["qualifies"] is None


def test_baku_cuts_the_lopsided_games():
    plain = run(swiss_config(), 10).measures.share_rating_diff_over
    baku = run(swiss_config(acceleration=Acceleration.BAKU), 10).measures.share_rating_diff_over
    assert baku[400] < plain[400]


def test_silli_stage_by_the_products_draw():
    config = LabConfig(
        parse_field("model1:310"), SilliFormat(100, 10), "cup", parse_qualification("top:20%")
    )
    played = play(config.field, config.format, config.seed, 0)
    assert [len(g) for g in played.groups] == [104, 103, 103]
    assert played.games_per_player == [10, 10, 10]
    assert len(played.games) == 310 * 5 and played.rounds == 5
    report = run(config, 3).to_json()
    assert report["calendar"] == {"games_per_player": 10}
    assert report["expectation"] is None
    assert report["games_per_tournament"] == 1550
    top = report["top_rated"]
    assert all(0 <= r["qualifies"] <= 1 for r in top)
    assert top[0]["qualifies"] > 0.5  # the best player nearly always qualifies


def test_silli_with_real_entrants_keeps_nations_apart():
    from apps.silli.lab import entrants_field

    field = entrants_field(make_entrants(320, "lab", multi_entry_share=0))
    played = play(field, SilliFormat(100, 10), "nations", 0)
    nation = [p.entrant.nation for p in field.players]
    assert not [g for g in played.games if nation[g[1]] == nation[g[2]]]


def test_round_robin_groups():
    config = LabConfig(parse_field("model1:48"), RoundRobinFormat(12), "rr", top=4)
    played = play(config.field, config.format, config.seed, 0)
    assert [len(g) for g in played.groups] == [12] * 4
    assert len(played.games) == 4 * 66 and played.rounds == 11
    report = run(config, 3).to_json()
    assert report["calendar"] == {"rounds": 11}
    assert report["games_per_tournament"] == 264


def test_bad_settings():
    with pytest.raises(FormatError):
        SilliFormat(100, 9)
    with pytest.raises(FormatError):
        parse_qualification("best:3")
    with pytest.raises(FormatError):
        parse_qualification("top:120%")


def test_command_json_swiss():
    args = ["--field", "model1:108", "--format", "swiss", "--rounds", "9"]
    args += ["--acceleration", "baku", "--tournaments", "4", "--seed", "S", "--json"]
    out = lab(*args)
    data = json.loads(out)
    assert KEYS <= data.keys()
    assert data["format"]["acceleration"] == "baku"
    assert lab(*args) == out
    assert lab(*args, "--workers", "2") == out


def test_command_silli_and_round_robin(tmp_path):
    data = json.loads(
        lab(
            "--field", "model1:300", "--format", "silli", "--group-size", "100",
            "--games", "10", "--qualify", "top:20%", "--tournaments", "2", "--json",
        )
    )  # fmt: skip
    assert data["qualify"] == "top:20%" and data["format"]["games"] == 10
    csv = tmp_path / "entrants.csv"
    csv.write_text(entrants_csv(make_entrants(48, "rr")), "utf-8")
    text = lab("--entrants", str(csv), "--format", "round_robin", "--group-size", "12",
               "--tournaments", "2")  # fmt: skip
    assert "games with a rating difference over" in text


def test_form_spread_is_a_setting_of_a_run_and_of_the_command():
    base = ["--field", "model1:60", "--format", "swiss", "--rounds", "5", "--tournaments", "3"]
    default = json.loads(lab(*base, "--json"))
    assert default["form_sd"] == 85
    flat = json.loads(lab(*base, "--form-sd", "0", "--json"))
    assert flat["form_sd"] == 0
    assert flat["share_rating_diff_over"] != default["share_rating_diff_over"]
    assert "form σ 0" in lab(*base, "--form-sd", "0")
    with pytest.raises(CommandError, match="form"):
        lab(*base, "--form-sd", "-5")
    with pytest.raises(ValueError, match="form"):
        LabConfig(parse_field("model1:10"), SwissFormat(3), "s", form_sd=500)


def test_command_errors():
    with pytest.raises(CommandError, match="unknown field"):
        lab("--field", "gauss:10", "--format", "swiss")
    with pytest.raises(CommandError, match="qualification"):
        lab("--field", "model1:20", "--format", "silli", "--group-size", "10",
            "--qualify", "top:x")  # fmt: skip
