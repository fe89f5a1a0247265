"""``python manage.py cc_clock FILE.json`` (docs/interfaces.md §8) on good and bad files."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

ROOT = Path(__file__).resolve().parents[2]
GAME = {
    "control": {"kind": "moves", "moves": 10, "days": 50, "doubling_after": 20},
    "start": "2027-03-01T10:00:00Z",
    "moves": ["2027-03-02T16:00:00Z", "2027-03-03T09:00:00Z", "2027-03-27T10:00:00Z"],
    "leave": {"white": [], "black": [["2027-03-10", "2027-03-12"]]},
    "now": "2027-03-28T10:00:00Z",
}


def cc_clock(tmp_path, content):
    path = tmp_path / "game.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    out = StringIO()
    call_command("cc_clock", str(path), stdout=out)
    return json.loads(out.getvalue())


def refused(tmp_path, content):
    with pytest.raises(CommandError) as err:
        cc_clock(tmp_path, content)
    assert err.value.returncode == 2
    message = str(err.value)
    assert message.startswith(str(tmp_path / "game.json")) and message.endswith(".")
    assert "\n" not in message
    return message


def test_a_game_in_play_under_ten_moves_in_fifty_days(tmp_path):
    # White 30 h: 1 day; Black 17 h: 0; White 24 days less Black's 3 days of leave: 21 → 22
    assert cc_clock(tmp_path, GAME) == {
        "moves": [
            {"ply": 1, "side": "white", "days_used": 1, "days_charged": 1},
            {"ply": 2, "side": "black", "days_used": 0, "days_charged": 0},
            {"ply": 3, "side": "white", "days_used": 21, "days_charged": 22},
        ],
        "white": {"charged_total": 23, "days_left": 27},
        "black": {"charged_total": 1, "days_left": 49},
        "lost_on_time": None,
        "at_ply": None,
        "lost_at": None,
    }


def test_a_loss_on_time_names_the_loser_the_ply_and_the_instant(tmp_path):
    game = {**GAME, "now": "2027-06-01T00:00:00Z"}
    out = cc_clock(tmp_path, game)
    # Black had 50 days: 36 days used are charged 52, reached on 2 May 10:00
    assert (out["lost_on_time"], out["at_ply"], out["lost_at"]) == (
        "black",
        4,
        "2027-05-02T10:00:00Z",
    )
    assert out["black"] == {"charged_total": 52, "days_left": 0} and len(out["moves"]) == 3


def test_fischer(tmp_path):
    game = {**GAME, "control": {"kind": "fischer", "base": 30, "increment": 3}}
    out = cc_clock(tmp_path, game)
    assert out["white"] == {"charged_total": 23, "days_left": 30 + 6 - 23}
    assert out["black"] == {"charged_total": 1, "days_left": 30 + 3 - 1}


def test_numbers_left_out_take_the_rules_defaults_and_null_means_no_doubling(tmp_path):
    plain = cc_clock(tmp_path, {**GAME, "control": {"kind": "moves"}})
    assert plain == cc_clock(tmp_path, GAME)
    no_doubling = cc_clock(tmp_path, {**GAME, "control": {"kind": "moves", "doubling_after": None}})
    assert no_doubling["moves"][2]["days_charged"] == 21


def test_leave_may_be_left_out_and_times_without_a_zone_are_utc(tmp_path):
    game = {key: value for key, value in GAME.items() if key != "leave"}
    game["start"] = "2027-03-01T11:00:00+01:00"
    game["moves"] = ["2027-03-02T16:00:00", *GAME["moves"][1:]]
    out = cc_clock(tmp_path, game)
    assert out["moves"][0]["days_used"] == 1 and out["moves"][2]["days_used"] == 24


def test_a_leave_includes_its_last_day(tmp_path):
    one_day = {**GAME, "leave": {"black": [["2027-03-10", "2027-03-10"]]}}
    assert cc_clock(tmp_path, one_day)["moves"][2]["days_used"] == 23


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        ("{not json", "is not JSON"),
        ("[]", "the file must be a JSON object"),
        ({**GAME, "colour": "white"}, "unknown key 'colour'"),
        ({k: v for k, v in GAME.items() if k != "control"}, "has no 'control'"),
        ({k: v for k, v in GAME.items() if k != "start"}, "has no 'start'"),
        ({k: v for k, v in GAME.items() if k != "moves"}, "has no 'moves'"),
        ({k: v for k, v in GAME.items() if k != "now"}, "has no 'now'"),
        ({**GAME, "control": {"moves": 10}}, "'control' has no 'kind'"),
        ({**GAME, "control": {"kind": "hourglass"}}, "kind 'hourglass' is unknown"),
        ({**GAME, "control": {"kind": "fischer", "days": 5}}, "unknown key 'days'"),
        (
            {**GAME, "control": {"kind": "moves", "days": -5}},
            "the control's days must be at least 1",
        ),
        (
            {**GAME, "control": {"kind": "moves", "moves": 0}},
            "the control's moves must be at least 1",
        ),
        ({**GAME, "control": {"kind": "fischer", "increment": -1}}, "at least 0"),
        ({**GAME, "control": {"kind": "fischer", "base": 2.5}}, "must be a whole number"),
        ({**GAME, "control": {"kind": "moves", "days": True}}, "must be a whole number"),
        ({**GAME, "control": {"kind": "moves", "doubling_after": -2}}, "at least 0"),
        ({**GAME, "start": "1 March 2027"}, "'start' ('1 March 2027') is not an ISO"),
        ({**GAME, "start": 20270301}, "'start' must be an ISO date and time"),
        ({**GAME, "moves": "2027-03-02T16:00:00Z"}, "'moves' must be a list"),
        ({**GAME, "moves": ["2027-03-02T16:00:00Z", "2027-02-30T10:00:00Z"]}, "move 2"),
        ({**GAME, "moves": ["2027-02-28T10:00:00Z"]}, "move 1 (2027-02-28T10:00:00+00:00) is"),
        ({**GAME, "moves": GAME["moves"][::-1]}, "move 2 (2027-03-03T09:00:00+00:00) is before"),
        ({**GAME, "now": "2027-03-20T00:00:00Z"}, "now (2027-03-20T00:00:00+00:00) is before"),
        ({**GAME, "leave": []}, "'leave' must be a JSON object"),
        ({**GAME, "leave": {"grey": []}}, "unknown key 'grey'"),
        ({**GAME, "leave": {"white": "2027-03-10"}}, "white's leave must be a list"),
        ({**GAME, "leave": {"white": [["2027-03-10"]]}}, "white's leave 1 must be a pair"),
        ({**GAME, "leave": {"black": [["2027-03-10", "2027-3-12"]]}}, "as YYYY-MM-DD"),
        ({**GAME, "leave": {"black": [["2027-03-10", "2027-03-32"]]}}, "not a date"),
        ({**GAME, "leave": {"black": [["2027-03-10", "2027-03-09"]]}}, "before it starts"),
    ],
)
def test_a_bad_file_exits_2_with_one_sentence(tmp_path, content, sentence):
    assert sentence in refused(tmp_path, content)


def test_a_missing_file_exits_2(tmp_path):
    with pytest.raises(CommandError) as err:
        call_command("cc_clock", str(tmp_path / "nowhere.json"), stdout=StringIO())
    assert err.value.returncode == 2 and "cannot read" in str(err.value)


def test_the_command_line_prints_one_json_object_or_exits_2(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(GAME), "utf-8")
    bad.write_text(json.dumps({**GAME, "control": {"kind": "hourglass"}}), "utf-8")
    run = [sys.executable, str(ROOT / "manage.py"), "cc_clock"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and json.loads(ok.stdout)["white"]["days_left"] == 27
    assert len(ok.stdout.strip().splitlines()) == 1
    no = subprocess.run([*run, str(bad)], capture_output=True, text=True, check=False)
    assert no.returncode == 2 and no.stdout == "" and "hourglass" in no.stderr


def test_the_example_of_the_interface_prints_the_answer_shown_there(tmp_path):
    text = (ROOT / "docs" / "interfaces.md").read_text("utf-8")
    section = text[text.index("## 8. The clock file") :]
    asked, answer = (block.split("```")[0] for block in section.split("```json")[1:3])
    assert cc_clock(tmp_path, asked) == json.loads(answer)
