"""The format lab on a stage: compare 2–4 candidate formats on the stage's own entrants.

* :mod:`.candidates` — a candidate format as a typed value, one class per format: read from
  a request, its label, the engine's format, the stage settings it stands for;
* :mod:`.runs` — a run: the request checked, started, simulated a part at a time with the
  pure engine (:mod:`apps.silli.lab`), its progress, a candidate applied to the stage;
* :mod:`.tasks` — its Celery tasks;
* :mod:`.serializers` — how the API describes a run (from the typed values).
"""
