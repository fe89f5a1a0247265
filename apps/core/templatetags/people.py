"""``{% load people %}``: ``{{ user|display_name }}`` and ``{{ group.td|td_name }}`` show the
name others see for an account (never its login name; see ``apps.core.people``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import template

from apps.core import people

if TYPE_CHECKING:
    from django.contrib.auth.models import User

register = template.Library()


@register.filter
def display_name(user: User | None) -> str:
    return people.display_name(user)


@register.filter
def td_name(user: User | None) -> str:
    return people.td_name(user)
