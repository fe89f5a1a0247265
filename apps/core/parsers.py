"""The API's JSON parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``; imported by settings
through DRF, so it imports nothing of DRF's views)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

# The deepest nesting of arrays and objects a JSON body may have (no endpoint reads more than
# three levels); deeper bodies are refused with 400 before anything walks them.
JSON_MAX_DEPTH = 32


def nested_deeper_than(data: object, limit: int) -> bool:
    """Whether ``data`` (parsed JSON) nests arrays and objects more than ``limit`` deep (a
    bare ``[]`` or ``{}`` is depth 1). Walked with a list, not by recursion."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


class JsonParser(JSONParser):
    """DRF's JSON parser, refusing a body nested more than ``JSON_MAX_DEPTH`` deep with a
    ParseError (400): ``json.loads`` fails with RecursionError on about a thousand levels, which
    DRF's parser does not catch (a 500), and fewer levels still cost every later walk over them.
    Every API view parses JSON with it (``DEFAULT_PARSER_CLASSES`` and the views that list
    their parsers); ``tests/core/test_hostile_input.py`` checks that none uses DRF's own."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
            deep = True
        else:
            deep = nested_deeper_than(data, JSON_MAX_DEPTH)
        if deep:
            raise exceptions.ParseError(
                _(
                    "the JSON is nested more than %(limit)s levels deep (arrays and objects "
                    "inside each other); no request of this API needs as many"
                )
                % {"limit": JSON_MAX_DEPTH}
            )
        return data
