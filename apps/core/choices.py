"""``TextChoices`` that a type checker understands.

At run time :class:`TextChoices` *is* ``django.db.models.TextChoices``: subclassing it is
exactly subclassing Django's class, so models, forms and migrations see no difference.

Django ships no type hints (and we use no django-stubs), so to a type checker Django's
``TextChoices`` would be ``Any`` and a member written ``CLOSED = "closed", _("Closed")`` a
tuple. Under ``TYPE_CHECKING`` this module shows it what the class is at run time instead: a
``str`` enum whose members have a ``value`` and a ``label``, and whose class has ``choices``
and ``values``. Every choices class in the apps subclasses this one rather than Django's.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar

from django.db import models

__all__ = ["TextChoices"]

if TYPE_CHECKING:

    class TextChoices(enum.StrEnum):
        """A ``str`` enum whose members have a label (Django's ``TextChoices``)."""

        choices: ClassVar[list[tuple[str, str]]]
        labels: ClassVar[list[str]]
        values: ClassVar[list[str]]
        names: ClassVar[list[str]]

        @property
        def value(self) -> str: ...

        @property
        def label(self) -> str: ...

else:
    TextChoices = models.TextChoices
