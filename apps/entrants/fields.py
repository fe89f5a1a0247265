"""The entrant field rules (``apps/silli/entrants.py``) for pages and actions: the engine's
problems as translated sentences, a form field that checks one entrant field with the engine,
and the error an action raises for refused values.

The rules themselves live only in the engine; this module says them in the user's language.
"""

from __future__ import annotations

from collections.abc import Iterable

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core.errors import ActionError, ErrorCode
from apps.silli import entrants as rules
from apps.silli.entrants import FieldProblem

# The engine's sentences (rules.MESSAGES), by kind, in the user's language.
MESSAGES = {
    "required": gettext_lazy("%(field)s is required"),
    "too_long": gettext_lazy("%(field)s is longer than %(limit)s characters"),
    "control": gettext_lazy(
        "%(field)s contains the control character %(char)s (position %(position)s); remove it"
    ),
    "formula": gettext_lazy(
        "%(field)s must not begin with %(char)s: spreadsheets would run it as a formula"
    ),
    "code_chars": gettext_lazy(
        "%(field)s %(value)s may hold only letters A-Z, digits, '.', '_' and '-', and must "
        "begin with a letter or a digit"
    ),
    "nation_format": gettext_lazy("nation %(value)s is not a 3-letter federation code"),
    "nation_format_suggest": gettext_lazy(
        "nation %(value)s is not a 3-letter federation code (did you mean %(suggestions)s?)"
    ),
    "nation_unknown": gettext_lazy("nation %(value)s is not a FIDE federation code"),
    "nation_unknown_suggest": gettext_lazy(
        "nation %(value)s is not a FIDE federation code (did you mean %(suggestions)s?)"
    ),
    "rating_number": gettext_lazy("rating %(value)s is not a whole number"),
    "rating_range": gettext_lazy("rating %(value)s is outside %(min)s..%(max)s"),
    "email": gettext_lazy("e-mail %(value)s is not an e-mail address"),
}
FIELD_WORDS = {
    "code": gettext_lazy("code"),
    "name": gettext_lazy("name"),
    "nation": gettext_lazy("nation"),
    "rating": gettext_lazy("rating"),
    "person": gettext_lazy("person"),
    "email": gettext_lazy("e-mail"),
    "reason": gettext_lazy("reason"),
    "seed": gettext_lazy("seed"),
}


def problem_message(problem: FieldProblem) -> str:
    """One problem as a sentence in the user's language."""
    template = MESSAGES.get(problem.kind)
    if template is None:
        return problem.message
    word = FIELD_WORDS.get(problem.field, problem.field)
    return str(template) % {"field": word, **problem.values()}


def problem_details(problems: Iterable[FieldProblem]) -> list[dict[str, str]]:
    """Problems as the API's details: ``[{field, message, code}]``."""
    return [{"field": p.field, "message": problem_message(p), "code": p.kind} for p in problems]


def invalid_fields(problems: list[FieldProblem]) -> ActionError:
    """The refusal of an action given values the field rules refuse (400, every problem)."""
    shown = "; ".join(problem_message(p) for p in problems[:5])
    if len(problems) > 5:
        shown += " " + _("(and %(more)s more)") % {"more": len(problems) - 5}
    return ActionError(
        ErrorCode.INVALID_INPUT,
        _("The entrant's details are not valid — %(problems)s. Correct them and send them again.")
        % {"problems": shown},
        problem_details(problems),
    )


class EntrantTextField(forms.CharField):
    """A form field checked by the engine: by the rule of one entrant field (``check``:
    ``code``, ``name``, ``nation``, ``person`` or ``email``), or by the plain text rule for
    the field named ``field`` (at most ``limit`` characters; ``formula=True``: not beginning
    with a spreadsheet formula prefix).

    The value reaches the rule untrimmed, so a tab or a newline in it is refused rather than
    silently cut off; the rule trims the spaces.
    """

    def __init__(
        self,
        *,
        check: str = "",
        field: str = "",
        limit: int = 0,
        formula: bool = False,
        **kwargs,
    ) -> None:
        kwargs.setdefault("strip", False)
        super().__init__(**kwargs)
        self.check = check
        self.field = field or check
        self.limit = limit or rules.LIMITS.get(check, 0)
        self.formula = formula
        # The engine's rule refuses NUL with the other control characters, in its own words.
        self.validators: list = []
        if self.limit:
            self.widget.attrs.setdefault("maxlength", str(self.limit))

    def clean(self, value):
        text = self.to_python(value) or ""  # never None: the empty value is ""
        if self.check:
            checked, problems = rules.FIELD_CHECKS[self.check](text)
        else:
            checked, problems = rules.check_text(
                self.field, text, limit=self.limit, formula=self.formula
            )
        if not self.required:
            problems = [p for p in problems if p.kind != "required"]
        if problems:
            raise forms.ValidationError(
                [forms.ValidationError(problem_message(p), code=p.kind) for p in problems]
            )
        if self.required and not checked:
            raise forms.ValidationError(self.error_messages["required"], code="required")
        return checked
