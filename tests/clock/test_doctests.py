"""The examples in the clock package's docstrings run as written."""

import doctest

import pytest

import apps.clock
from apps.clock import controls


@pytest.mark.parametrize("module", [apps.clock, controls])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed
