"""``{% load people %}``: ``{{ user|display_name }}`` and ``{{ group.td|td_name }}`` show the
name others see for an account (never its login name; see ``apps.core.people``)."""

from __future__ import annotations

from django import template

from apps.core import people

register = template.Library()


@register.filter
def display_name(user) -> str:
    return people.display_name(user)


@register.filter
def td_name(user) -> str:
    return people.td_name(user)
