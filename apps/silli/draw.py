"""The draw of one stage: division, formulas, seating, games, and the digest.

The draw is a pure function of (entrants, settings, seed, pairs that met
before, earlier groups). It runs in three steps that a job queue can spread
over workers — :func:`divide_stage` once, :func:`draw_group` per group (each
group has its own chance stream, so the groups are independent), then
:func:`assemble` — and :func:`draw_stage` runs them in one go. Both ways give
the same :class:`StageDraw` and so the same digest.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import cast

from .division import DivisionSettings, divide
from .entrants import Entrant, entrants_digest
from .feasibility import feasibility, stage_sizes
from .records import DrawError as DrawError
from .records import Game as Game
from .records import GroupDraw as GroupDraw
from .records import Seat as Seat
from .records import nation_mix as nation_mix
from .rng import ChanceStream
from .swiss_system import ACCELERATIONS
from .systems import ROUND_ROBIN as ROUND_ROBIN
from .systems import SILLI as SILLI
from .systems import SYSTEMS, pairing_system


@dataclass(frozen=True, slots=True)
class DrawSettings:
    """Everything besides entrants and seed that decides a draw (recorded in DRAW.json)."""

    games_per_player: int = 10
    format: str = SILLI
    min_group_size: int = 100
    separate_nations: bool = True
    avoid_rematches: bool = True
    double_round_robin: bool = False
    balance_ratings: bool = False
    odd: bool = False
    formula: tuple[int, ...] | None = None
    allowed_nation_games: int = 0
    swiss_rounds: int = 0
    """A Swiss stage's number of rounds (0 for other formats)."""
    swiss_acceleration: str = "none"
    """A Swiss stage's acceleration: ``none``, ``baku`` or ``general``."""

    def __post_init__(self) -> None:
        if self.format not in SYSTEMS:
            raise DrawError(f"unknown format {self.format!r}; use one of {', '.join(SYSTEMS)}")
        if self.swiss_acceleration not in ACCELERATIONS:
            raise DrawError(
                f"unknown acceleration {self.swiss_acceleration!r}; use one of "
                f"{', '.join(ACCELERATIONS)}"
            )
        if self.formula is not None:
            object.__setattr__(self, "formula", tuple(sorted(self.formula)))

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["formula"] = list(self.formula) if self.formula else None
        if not self.swiss_rounds and self.swiss_acceleration == "none":
            # Swiss settings only in a Swiss draw: other draws' files stay as they were.
            del data["swiss_rounds"], data["swiss_acceleration"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> DrawSettings:
        names = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in names}
        if values.get("formula") is not None:
            values["formula"] = tuple(values["formula"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class StageDraw:
    """The whole draw of a stage, ready to publish as DRAW.json."""

    seed: str
    settings: DrawSettings
    entrants_digest: str
    met_before_digest: str
    earlier_groups_digest: str
    groups: tuple[GroupDraw, ...] = field(default_factory=tuple)

    @property
    def digest(self) -> str:
        return groups_digest(g.as_dict() for g in self.groups)

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"seed": self.seed, **self.settings.as_dict()}
        data["entrants_digest"] = self.entrants_digest
        data["met_before_digest"] = self.met_before_digest
        data["earlier_groups_digest"] = self.earlier_groups_digest
        data["groups"] = [g.as_dict() for g in self.groups]
        data["digest"] = self.digest
        return data

    def to_json(self) -> str:
        """DRAW.json: keys in a fixed order, one group per line, UTF-8."""
        return draw_json(self.as_dict())


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, non-ASCII kept: the form every digest is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def groups_digest(groups: Iterable[Mapping[str, object]]) -> str:
    """SHA-256 (hex) of the canonical JSON of the list of groups."""
    return hashlib.sha256(canonical_json(list(groups)).encode()).hexdigest()


def texts_digest(texts: Iterable[str]) -> str:
    """:func:`groups_digest` of groups given as their canonical JSON texts (the canonical
    JSON of a list is its items' joined by commas, in brackets): nothing decoded."""
    return hashlib.sha256(("[" + ",".join(texts) + "]").encode()).hexdigest()


def draw_json(data: Mapping[str, object], group_texts: Sequence[str] | None = None) -> str:
    """DRAW.json of ``data`` (its ``groups``, or ``group_texts``: the groups' canonical JSON
    texts as stored, written as they are)."""
    head = {k: v for k, v in data.items() if k not in ("groups", "digest")}
    lines = ["{" + canonical_json(head)[1:-1] + ',"groups":[']
    if group_texts is None:
        groups = cast("Sequence[object]", data.get("groups", []))  # a list, from as_dict()
        group_texts = [canonical_json(g) for g in groups]
    lines += [
        text + ("," if i < len(group_texts) - 1 else "") for i, text in enumerate(group_texts)
    ]
    lines.append('],"digest":' + json.dumps(data.get("digest")) + "}")
    return "\n".join(lines) + "\n"


def pairs_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """SHA-256 (hex) of the met-before pairs, each sorted, one ``a,b`` per line, sorted."""
    lines = sorted({",".join(sorted(p)) for p in pairs})
    return hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()


def earlier_groups_digest(earlier_group: Mapping[str, str] | None) -> str:
    """SHA-256 (hex) of the earlier-group map, one ``code,group`` per line, sorted."""
    return pairs_digest((earlier_group or {}).items())


def met_before_map(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    partners: dict[str, set[str]] = {}
    for a, b in pairs:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in partners.items()}


# ---------------------------------------------------------------------------
# The three steps
# ---------------------------------------------------------------------------


def divide_stage(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    earlier_group: Mapping[str, str] | None = None,
) -> list[list[Entrant]]:
    """Step 1: the groups' members (stream ``division``)."""
    codes = Counter(e.code for e in entrants)
    dup = [c for c, k in codes.items() if k > 1]
    if dup:
        raise DrawError(f"entrant code(s) used twice: {', '.join(sorted(dup)[:10])}")
    if pairing_system(settings.format).one_group:
        return [sorted(entrants, key=lambda e: e.code)] if entrants else []
    return divide(
        entrants,
        ChanceStream(seed, "division"),
        DivisionSettings(settings.min_group_size, settings.balance_ratings),
        earlier_group,
        sizes=division_sizes_of(len(entrants), settings),
    )


def division_sizes_of(total: int, settings: DrawSettings) -> list[int]:
    """The group sizes of ``total`` entrants with ``settings`` (docs/silli.md §7): the most
    groups of at least the smallest group size whose sizes all have a formula (a closed
    circle); a :class:`DrawError` saying why and what would work when there are none."""
    if total < 1:
        raise DrawError("a stage needs at least one entrant")
    sizes = stage_sizes(
        total,
        settings.min_group_size,
        format=settings.format,
        games=settings.games_per_player,
        odd=settings.odd,
        formula=settings.formula,
    )
    if sizes is None:
        found = feasibility(
            total,
            settings.games_per_player,
            settings.min_group_size,
            format=settings.format,
            odd=settings.odd,
            formula=settings.formula,
        )
        raise DrawError(found.sentence)
    return sizes


def draw_group(
    number: int,
    members: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before: Mapping[str, frozenset[str]],
) -> GroupDraw:
    """Step 2: seat one group (streams ``group/<number>/...``) and list its games."""
    members = sorted(members, key=lambda e: e.code)
    rematches = met_before if settings.avoid_rematches else {}
    return pairing_system(settings.format).draw_group(number, members, settings, seed, rematches)


def assemble(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before_pairs: Iterable[tuple[str, str]],
    earlier_group: Mapping[str, str] | None,
    groups: Iterable[GroupDraw],
) -> StageDraw:
    """Step 3: the stage draw from its groups, in group-number order."""
    return StageDraw(
        seed=seed,
        settings=settings,
        entrants_digest=entrants_digest(entrants),
        met_before_digest=pairs_digest(met_before_pairs),
        earlier_groups_digest=earlier_groups_digest(earlier_group),
        groups=tuple(sorted(groups, key=lambda g: g.number)),
    )


def draw_stage(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before_pairs: Iterable[tuple[str, str]] = (),
    earlier_group: Mapping[str, str] | None = None,
) -> StageDraw:
    """The whole draw: divide, seat every group, assemble."""
    pairs = list(met_before_pairs)
    partners = met_before_map(pairs)
    members = divide_stage(entrants, settings, seed, earlier_group)
    groups = [
        draw_group(number, group, settings, seed, partners)
        for number, group in enumerate(members, start=1)
    ]
    return assemble(entrants, settings, seed, pairs, earlier_group, groups)
