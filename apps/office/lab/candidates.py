"""A format lab candidate: the settings of one format to compare, as a typed value.

There is one class per format — :class:`SilliCandidate`, :class:`RoundRobinCandidate`,
:class:`SwissCandidate` — and each knows, for its format: how to read its settings from a
request (:meth:`parse`, every problem collected), the label people read, the games a
simulated tournament plays, the lab engine's format it is simulated as, and the stage
settings it stands for. :data:`CANDIDATES` maps each :class:`~apps.silli.formats.Format` to
its class; :func:`parse_candidate` and :func:`candidate_from_json` dispatch through it, and
nothing else asks which format a candidate is. The qualification rule, common to all, is a
:class:`Qualifying`.

A run stores its candidates (``LabRun.candidates``) as :meth:`to_json` gives them — the
request's keys: ``format``, the format's own settings, ``qualify_rule``, ``qualify_value``
(as written: "20", not "2E+1") and ``qualify_relative`` — and reads them back with
:func:`candidate_from_json`, which takes a setting left out (the booleans, the acceleration,
the qualification) at its default, as every reader of a stored candidate always has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, ClassVar, Literal, cast

from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode
from apps.silli.feasibility import feasibility
from apps.silli.formats import Format
from apps.silli.formula import counting_lower_bound
from apps.silli.lab import Qualification, RoundRobinFormat, SilliFormat, SwissFormat
from apps.silli.lab.formats import Tiebreak
from apps.silli.swiss.acceleration import Acceleration
from apps.stages.feasibility import message as feasibility_message
from apps.stages.models import (
    GAMES_MAX,
    GAMES_MIN,
    GROUP_MAX,
    GROUP_MIN,
    SWISS_ROUNDS_MAX,
    SWISS_ROUNDS_MIN,
    Stage,
)

ACCELERATIONS = (Acceleration.NONE.value, Acceleration.BAKU.value)
QualifyRule = Literal["top_per_group", "top_overall"]
QUALIFY_RULES: tuple[QualifyRule, ...] = ("top_per_group", "top_overall")


# ---------------------------------------------------------------------------
# Problems
# ---------------------------------------------------------------------------


class Problems:
    """Every problem of a request, each naming its field; refused all at once."""

    def __init__(self) -> None:
        self.details: list[dict[str, str]] = []

    def add(self, field: str, message: str) -> None:
        self.details.append({"field": field, "message": message, "code": "invalid"})

    def raise_if_any(self) -> None:
        if self.details:
            shown = " ".join(d["message"] for d in self.details)
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _("The format lab cannot run these settings — %(errors)s") % {"errors": shown},
                details=self.details,
            )


Bad = Callable[[str, str], None]
"""Report a problem of one candidate: its field (empty: the candidate) and the message."""


def whole_number(value: Any) -> int | None:
    """A request's whole number (an int, or text of digits; not a bool), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "on", "yes")
    return bool(value)


def _check_group_size(size: int | None, bad: Bad) -> None:
    if size is None or not GROUP_MIN <= size <= GROUP_MAX:
        bad(
            "group_size",
            _("the group size must be a whole number from %(min)s to %(max)s.")
            % {"min": GROUP_MIN, "max": GROUP_MAX},
        )


# ---------------------------------------------------------------------------
# The qualification rule
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Qualifying:
    """Who goes on: nobody (no ``rule``), or the first ``value`` places — a percentage when
    ``relative`` — of each group (``top_per_group``) or of the whole stage (``top_overall``).
    ``value`` is kept as written (None without a rule)."""

    rule: QualifyRule | None = None
    value: str | None = None
    relative: bool = False

    @classmethod
    def parse(cls, raw: Mapping[str, Any], bad: Bad) -> Qualifying | None:
        """The rule of a request's candidate (None: a problem went to ``bad``)."""
        rule = raw.get("qualify_rule") or ""
        relative = _bool(raw.get("qualify_relative", False))
        if not rule:
            return cls(None, None, relative)
        if rule not in QUALIFY_RULES:
            bad("qualify_rule", _("the qualification rule must be top_per_group or top_overall."))
            return None
        try:
            value = Decimal(str(raw.get("qualify_value")).strip())
            if not value.is_finite() or value <= 0:
                raise ValueError
            _lab_rule(rule, value, relative).spec  # noqa: B018  (checks the value)
        except (InvalidOperation, ValueError, TypeError, OverflowError):
            bad(
                "qualify_value",
                _(
                    "the qualification value must be a positive whole number of places, or "
                    "a percentage up to 100 when relative."
                ),
            )
            return None
        return cls(rule, format(value.normalize(), "f"), relative)  # "20", not "2E+1"

    def to_json(self) -> dict[str, Any]:
        return {
            "qualify_rule": self.rule or "",
            "qualify_value": self.value,
            "qualify_relative": self.relative,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Qualifying:
        rule = data.get("qualify_rule") or None
        return cls(rule, data.get("qualify_value"), bool(data.get("qualify_relative")))

    def lab_rule(self) -> Qualification | None:
        """The lab engine's rule (None: nobody goes on)."""
        if self.rule is None or self.value is None:
            return None
        return _lab_rule(self.rule, Decimal(self.value), self.relative)

    def label(self) -> str:
        """ ", top 20 % of each group" and the like; empty without a rule."""
        if self.rule is None:
            return ""
        # runs stored before the value was kept as written may hold "2E+1"
        value = format(Decimal(str(self.value)).normalize(), "f")
        amount = f"{value} %" if self.relative else value
        where = (
            _("top %(amount)s of each group")
            if self.rule == "top_per_group"
            else _("top %(amount)s overall")
        ) % {"amount": amount}
        return ", " + where

    def stage_changes(self) -> dict[str, Any]:
        """The stage's qualification settings (none without a rule: the stage keeps its own)."""
        if self.rule is None or self.value is None:
            return {}
        return {
            "qualify_rule": self.rule,
            "qualify_value": Decimal(self.value),
            "qualify_relative": self.relative,
        }


def _lab_rule(rule: QualifyRule, value: Decimal, relative: bool) -> Qualification:
    return Qualification(Fraction(value), relative, rule == "top_per_group")


# ---------------------------------------------------------------------------
# One class per format
# ---------------------------------------------------------------------------


def _group_stage_changes(kind: Format, group_size: int) -> dict[str, Any]:
    """A stage of groups (Silli, round robin): its smallest group, no Swiss settings."""
    return {
        "format": kind.value,
        "min_group_size": group_size,
        "swiss_rounds": None,
        "swiss_acceleration": Acceleration.NONE.value,
        "swiss_round_days": None,
    }


@dataclass(frozen=True, slots=True)
class SilliCandidate:
    """Closed circles of at least ``group_size`` players, ``games_per_player`` games each."""

    kind: ClassVar[Format] = Format.SILLI
    group_size: int
    games_per_player: int
    balance_ratings: bool = False
    qualifying: Qualifying = Qualifying()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], players: int, bad: Bad) -> SilliCandidate | None:
        """The format's settings from a request (None: a problem went to ``bad``): a group
        size a closed circle of these games can have, for the groups ``players`` make."""
        wrong_fields: list[str] = []

        def wrong(field: str, message: str) -> None:
            wrong_fields.append(field)
            bad(field, message)

        size = whole_number(raw.get("group_size"))
        _check_group_size(size, wrong)
        games = whole_number(raw.get("games_per_player"))
        if games is None or not GAMES_MIN <= games <= GAMES_MAX or games % 2:
            wrong(
                "games_per_player",
                _("games per player must be an even number from %(min)s to %(max)s.")
                % {"min": GAMES_MIN, "max": GAMES_MAX},
            )
        if games is not None and size is not None and not games % 2 and games >= 2:
            least = counting_lower_bound(games // 2)
            if size < least:
                wrong(
                    "group_size",
                    _(
                        "the group size %(size)s is too small: a closed circle needs at least "
                        "%(least)s players for %(games)s games per player."
                    )
                    % {"size": size, "least": least, "games": games},
                )
            elif players >= 1:
                found = feasibility(players, games, size)
                if not found.ok:
                    wrong("group_size", feasibility_message(found) or "")
        balance = _bool(raw.get("balance_ratings", False))
        if wrong_fields or size is None or games is None:
            return None
        return cls(size, games, balance)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.kind.value,
            "group_size": self.group_size,
            "games_per_player": self.games_per_player,
            "balance_ratings": self.balance_ratings,
            **self.qualifying.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SilliCandidate:
        return cls(
            data["group_size"],
            data["games_per_player"],
            bool(data.get("balance_ratings")),
            Qualifying.from_json(data),
        )

    @property
    def label(self) -> str:
        """The candidate in words, e.g. "Silli, groups of at least 100, 10 games per player,
        top 20 % of each group"."""
        text = _("Silli, groups of at least %(size)s, %(games)s games per player") % {
            "size": self.group_size,
            "games": self.games_per_player,
        }
        return text + self.qualifying.label()

    def games_per_tournament(self, players: int) -> int:
        return players * self.games_per_player // 2

    def lab_format(self, tiebreak: str) -> SilliFormat:
        """The format the lab simulates, breaking ties as the tournament does."""
        return SilliFormat(
            group_size=self.group_size,
            games=self.games_per_player,
            balance_ratings=self.balance_ratings,
            tiebreak=cast(Tiebreak, tiebreak),
        )

    def stage_changes(self, stage: Stage) -> dict[str, Any]:
        """The stage settings the candidate stands for (the games per player inherited from
        the tournament when they are the same)."""
        inherited = stage.tournament.games_per_player
        return {
            **_group_stage_changes(self.kind, self.group_size),
            "games_per_player_override": (
                None if self.games_per_player == inherited else self.games_per_player
            ),
            "balance_ratings": self.balance_ratings,
            **self.qualifying.stage_changes(),
        }


@dataclass(frozen=True, slots=True)
class RoundRobinCandidate:
    """Round robins (single or double) in groups of at least ``group_size`` players."""

    kind: ClassVar[Format] = Format.ROUND_ROBIN
    group_size: int
    double_round_robin: bool = False
    qualifying: Qualifying = Qualifying()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], players: int, bad: Bad) -> RoundRobinCandidate | None:
        """As :meth:`SilliCandidate.parse`: a group size."""
        size = whole_number(raw.get("group_size"))
        _check_group_size(size, bad)
        double = _bool(raw.get("double_round_robin", False))
        if size is None or not GROUP_MIN <= size <= GROUP_MAX:
            return None
        return cls(size, double)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.kind.value,
            "group_size": self.group_size,
            "double_round_robin": self.double_round_robin,
            **self.qualifying.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoundRobinCandidate:
        double = bool(data.get("double_round_robin"))
        return cls(data["group_size"], double, Qualifying.from_json(data))

    @property
    def label(self) -> str:
        text = (
            _("Double round robin, groups of at least %(size)s")
            if self.double_round_robin
            else _("Round robin, groups of at least %(size)s")
        ) % {"size": self.group_size}
        return text + self.qualifying.label()

    def games_per_tournament(self, players: int) -> int:
        size = min(self.group_size, players)
        per_player = (size - 1) * (2 if self.double_round_robin else 1)
        return players * per_player // 2

    def lab_format(self, tiebreak: str) -> RoundRobinFormat:
        return RoundRobinFormat(
            group_size=self.group_size,
            double=self.double_round_robin,
            tiebreak=cast(Tiebreak, tiebreak),
        )

    def stage_changes(self, stage: Stage) -> dict[str, Any]:
        return {
            **_group_stage_changes(self.kind, self.group_size),
            "double_round_robin": self.double_round_robin,
            **self.qualifying.stage_changes(),
        }


@dataclass(frozen=True, slots=True)
class SwissCandidate:
    """One Swiss of every entrant: ``rounds`` rounds, with or without Baku acceleration."""

    kind: ClassVar[Format] = Format.SWISS
    rounds: int
    acceleration: Acceleration = Acceleration.NONE
    qualifying: Qualifying = Qualifying()

    @classmethod
    def parse(cls, raw: Mapping[str, Any], players: int, bad: Bad) -> SwissCandidate | None:
        """As :meth:`SilliCandidate.parse`: at most one round fewer than the players, within
        a Swiss stage's bounds (``swiss_rounds`` of the settings' declaration), and an
        acceleration the lab plays."""
        rounds = whole_number(raw.get("rounds"))
        most = max(SWISS_ROUNDS_MIN, min(SWISS_ROUNDS_MAX, players - 1))
        fine = True
        if rounds is None or not SWISS_ROUNDS_MIN <= rounds <= most:
            bad(
                "rounds",
                _("a Swiss needs from 1 to %(max)s rounds for %(players)s players.")
                % {"max": most, "players": players},
            )
            fine = False
        acceleration = raw.get("acceleration") or Acceleration.NONE.value
        if acceleration not in ACCELERATIONS:
            bad("acceleration", _("the acceleration must be none or baku."))
            fine = False
        if not fine or rounds is None:
            return None
        return cls(rounds, Acceleration(acceleration))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.kind.value,
            "rounds": self.rounds,
            "acceleration": self.acceleration.value,
            **self.qualifying.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SwissCandidate:
        acceleration = Acceleration(data.get("acceleration") or Acceleration.NONE.value)
        return cls(data["rounds"], acceleration, Qualifying.from_json(data))

    @property
    def label(self) -> str:
        text = (
            _("Swiss, %(rounds)s rounds, Baku acceleration")
            if self.acceleration is Acceleration.BAKU
            else _("Swiss, %(rounds)s rounds")
        ) % {"rounds": self.rounds}
        return text + self.qualifying.label()

    def games_per_tournament(self, players: int) -> int:
        return players // 2 * self.rounds

    def lab_format(self, tiebreak: str) -> SwissFormat:
        # A Swiss breaks its ties by Buchholz (the Torino system is made for closed circles).
        return SwissFormat(rounds=self.rounds, acceleration=self.acceleration)

    def stage_changes(self, stage: Stage) -> dict[str, Any]:
        # One group of every entrant, paired round by round: no group size, no games per
        # player, no formula of its own.
        return {
            "format": self.kind.value,
            "swiss_rounds": self.rounds,
            "swiss_acceleration": self.acceleration.value,
            "games_per_player_override": None,
            "formula": None,
            **self.qualifying.stage_changes(),
        }


Candidate = SilliCandidate | RoundRobinCandidate | SwissCandidate

CANDIDATES: dict[Format, type[Candidate]] = {
    c.kind: c for c in (SilliCandidate, RoundRobinCandidate, SwissCandidate)
}
"""Each format's candidate class."""


def parse_candidate(raw: Any, index: int, players: int, problems: Problems) -> Candidate | None:
    """Candidate ``index`` (0-based) of a request for a stage of ``players`` entrants; None
    when something is wrong with it, each problem added to ``problems`` under
    ``candidates.{index}.{field}`` and starting with "Candidate {index + 1}:"."""
    where = f"candidates.{index}"
    name = _("Candidate %(n)s") % {"n": index + 1}

    def bad(field: str, message: str) -> None:
        problems.add(f"{where}.{field}" if field else where, f"{name}: {message}")

    if not isinstance(raw, dict):
        bad("", _("give the candidate's settings as an object."))
        return None
    try:
        kind = Format(raw.get("format", ""))
    except ValueError:
        bad("format", _("the format must be silli, round_robin or swiss."))
        return None
    candidate = CANDIDATES[kind].parse(raw, players, bad)
    qualifying = Qualifying.parse(raw, bad)
    if candidate is None or qualifying is None:
        return None
    return replace(candidate, qualifying=qualifying)


def candidate_from_json(data: Mapping[str, Any]) -> Candidate:
    """A candidate as a run stores it (:meth:`to_json`)."""
    return CANDIDATES[Format(data["format"])].from_json(data)
