"""python manage.py silli_formula N --games G [--odd] [--formula d1,d2,...] [--json]"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from apps.silli.circle import black_opponents, white_opponents
from apps.silli.formula import (
    NoFormulaError,
    bad_relations,
    certificate,
    check_given,
    choose_formula,
    formula_text,
    games_to_k,
)

from ..engine_io import Failure

RULES = {
    "natural": "first natural formula",
    "reserve": "second natural (reserve) formula",
    "searched": "searched: smallest largest number, then lexicographic",
    "given": "given by hand",
}


def parse_formula(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.replace(".", ",").split(",") if part.strip())
    except ValueError:
        raise Failure(f"--formula {text!r} must be whole numbers like 1,4,10,17,29") from None
    if not values:
        raise Failure("--formula needs at least one number")
    return values


class Command(BaseCommand):
    help = "Choose (or check) the pairing formula for a closed circle of N seats."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("n", type=int, help="number of seats in the circle")
        parser.add_argument("--games", type=int, required=True, help="games per player (even)")
        parser.add_argument("--odd", action="store_true", help="the all-odd family")
        parser.add_argument("--formula", help="check this formula instead, e.g. 1,4,10,17,32")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **opts) -> None:
        n, games = opts["n"], opts["games"]
        given = parse_formula(opts["formula"]) if opts["formula"] else None
        try:
            games_to_k(games)
            if given is None:
                choice = choose_formula(n, games, odd=opts["odd"])
                formula, rule = choice.formula, choice.rule
            else:
                formula, rule = tuple(sorted(given)), "given"
        except NoFormulaError as exc:
            if opts["json"]:
                self.stdout.write(
                    json.dumps(
                        {
                            "n": n,
                            "games": games,
                            "formula": None,
                            "rule": None,
                            "valid": False,
                            "violations": [],
                            "reason": str(exc),
                        }
                    )
                )
            raise Failure(str(exc)) from exc
        cert = certificate(n, formula, 50)
        relations = bad_relations(n, formula)
        reason = None
        if given is not None:
            try:
                check_given(n, games, given)
            except NoFormulaError as exc:
                reason = str(exc)
        if opts["json"]:
            out = {
                "n": n,
                "games": games,
                "formula": list(formula),
                "rule": rule,
                "valid": reason is None and cert.valid,
                "violations": [v.as_dict() for v in cert.violations],
                "violation_count": cert.violation_count,
                "relations": relations,
            }
            if reason:
                out["reason"] = reason
            self.stdout.write(json.dumps(out))
        else:
            self._print(n, games, formula, rule, cert, relations)
        if reason:
            raise Failure(reason)

    def _print(self, n, games, formula, rule, cert, relations) -> None:
        k = len(formula)
        self.stdout.write(
            f"{n} seats, {games} games per player: {formula_text(formula)} ({RULES[rule]})"
        )
        if cert.valid:
            self.stdout.write(
                f"Certificate: all {n * (n - 1) // 2} pairs of seats checked. Every seat has "
                f"{2 * k} different opponents ({k} with White, {k} with Black); players who "
                "meet share no opponent (principle 1); players who don't meet share at most "
                "two (principle 2)."
            )
            for seat in (1, n):
                self.stdout.write(
                    f"  seat {seat}: White {', '.join(map(str, white_opponents(n, formula, seat)))}"
                    f"; Black {', '.join(map(str, black_opponents(n, formula, seat)))}"
                )
            return
        self.stdout.write(f"NOT VALID on {n} seats: {cert.violation_count} violation(s).")
        for relation in relations[:10]:
            self.stdout.write(f"  {relation}")
        for violation in cert.violations[:10]:
            self.stdout.write(f"  {violation}")
        if cert.violation_count > 10:
            self.stdout.write(f"  … and {cert.violation_count - 10} more pairs of seats")
