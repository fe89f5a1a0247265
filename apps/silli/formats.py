"""The kinds of stage format, one enumeration for the whole product.

A :class:`Format` is the name of a pairing system (:data:`apps.silli.systems.SYSTEMS`), the
value of ``DrawSettings.format``, the kind of a format lab candidate and of the lab's simulated
formats (:mod:`apps.silli.lab.formats`), and the value of the Django model's ``Stage.Format``
choices (a test holds those equal to this enumeration).
"""

from __future__ import annotations

from enum import StrEnum


class Format(StrEnum):
    SILLI = "silli"
    """Closed circles of a formula (:class:`~apps.silli.systems.SilliSystem`)."""
    ROUND_ROBIN = "round_robin"
    """Berger round robins, single or double (:class:`~apps.silli.systems.RoundRobinSystem`)."""
    SWISS = "swiss"
    """One group paired round by round (:class:`~apps.silli.swiss_system.SwissSystem`)."""
