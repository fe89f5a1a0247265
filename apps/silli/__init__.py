"""The Silli engine: closed-circle pairings for correspondence chess.

Pure Python (no Django), deterministic and typed. The parts, one module each:

* :mod:`~apps.silli.rng` — the published generator all chance comes from;
* :mod:`~apps.silli.formula` — formula validity (criterion and brute-force
  certificate) and selection (natural, reserve, searched, all-odd);
* :mod:`~apps.silli.circle` — who plays whom with which colour;
* :mod:`~apps.silli.division` — splitting a stage into groups;
* :mod:`~apps.silli.feasibility` — which group sizes have a formula, what the division makes
  of N entrants, and the nearest workable settings when nothing can be drawn;
* :mod:`~apps.silli.seating` — seating a group so no forbidden pair meets;
* :mod:`~apps.silli.roundrobin` — Berger tables for small groups;
* :mod:`~apps.silli.systems` — the pairing systems (Silli, round robin) behind one
  interface, by stage format;
* :mod:`~apps.silli.records` — a drawn group's seats and games, and the draw's error;
* :mod:`~apps.silli.draw` — the whole draw and its digest;
* :mod:`~apps.silli.verify` — re-running and checking a published draw;
* :mod:`~apps.silli.entrants` — the entrant record and CSV contract;
* :mod:`~apps.silli.synth` — synthetic entrants for demos and benchmarks.
"""

from .draw import DrawError, DrawSettings, GroupDraw, StageDraw, draw_group, draw_stage
from .entrants import Entrant, EntrantCsvError, entrants_digest, parse_entrants_csv
from .formula import NoFormulaError, certificate, choose_formula, is_valid
from .rng import ChanceStream
from .verify import verify_draw

__all__ = [
    "ChanceStream",
    "DrawError",
    "DrawSettings",
    "Entrant",
    "EntrantCsvError",
    "GroupDraw",
    "NoFormulaError",
    "StageDraw",
    "certificate",
    "choose_formula",
    "draw_group",
    "draw_stage",
    "entrants_digest",
    "is_valid",
    "parse_entrants_csv",
    "verify_draw",
]
