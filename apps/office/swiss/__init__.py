"""Swiss play: a Swiss stage round by round, after the draw has paired round 1.

* :mod:`.state` — the state of a Swiss stage: its group, its rounds, each seat's record;
* :mod:`.pairing` — pairing the next round (asked for by the organizer, by a round's last
  result, by a round's deadline);
* :mod:`.late` — late entrants, seated at the end and paired from the next round on;
* :mod:`.deadlines` — a round's deadline passing;
* :mod:`.tasks` — their Celery tasks.
"""
