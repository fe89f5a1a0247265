"""Scoring: what the results of a group add up to. Pure Python (no Django, no other app), typed.

The parts, one module each:

* :mod:`~apps.scoring.points` — points as a chess player writes them (``6½``);
* :mod:`~apps.scoring.tiebreaks` — figures and standings of a group: the Buchholz chain, the
  Torino system, the seeded lot;
* :mod:`~apps.scoring.qualification` — who goes on to the next stage (the four rules);
* :mod:`~apps.scoring.trf.read` and :mod:`~apps.scoring.trf.write` — FIDE TRF files read as
  tie-break input and written from a group's players and games.

The standings app stores and serves what these compute; the format lab (``apps.silli.lab``)
ranks and qualifies its simulated groups with them.
"""
