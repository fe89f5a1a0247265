"""People, not rows: which :class:`~.models.Person` each entry belongs to.

An entry (:class:`~.models.Entrant`) belongs to a person by one of two keys:

* its **account** (``Entrant.user``, set when the entry is claimed or an organizer links
  it): every entry of an account belongs to the account's one person;
* its **rating-list ID** (``Entrant.person``) when one was given: every entry with the same
  ID belongs to the person with that ``rating_id``. An ID that is only the entry's own code
  (what an entry gets when none was given) is no ID: codes such as ``E000001`` repeat from
  tournament to tournament and say nothing of who plays.

The account comes first. An account whose entries carry an ID takes that ID when its person
has none; when the person with that ID has no account, the two are one person and are
merged (the account's person keeps its id; the other one is left empty, pointing at it, so
that a link to its page still leads to the person). An entry with neither key has no person.

:func:`link_people` applies these rules to a set of entries, set-based (a few queries
however many entries): entrant imports, adding or changing one entrant, claiming and
linking an entry call it inside their own transaction; ``manage.py link_people`` runs it over
the entries made before people existed. :func:`known_people` says which rows of an import
belong to people the site knows already (the import's preview shows them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery

from apps.silli.entrants import Entrant as EngineEntrant

from .models import Entrant, Person

# Keys per query when people are looked up by a list of IDs or accounts.
CHUNK = 500


def id_given() -> Q:
    """The entries whose ``person`` is a rating-list ID (not empty, not just the code)."""
    return ~Q(person="") & ~Q(person=F("code"))


def given_id(code: str, person: str) -> str:
    """The rating-list ID of an entry with this code and person field ("" for none)."""
    return "" if person == code else person


def _chunks(keys: list) -> Iterator[list]:
    for start in range(0, len(keys), CHUNK):
        yield keys[start : start + CHUNK]


@dataclass(frozen=True)
class Linked:
    """What :func:`link_people` did: people made, and people merged into another."""

    created: int = 0
    merged: int = 0


def with_rating_id() -> QuerySet[Person]:
    """People with a rating-list ID. Saying ``rating_id <> ''`` lets the database use the
    partial unique index on the IDs for a lookup by ID (it holds only the IDs given)."""
    return Person.objects.exclude(rating_id="")


def _people_by(field: str, keys: Iterable) -> dict[Any, Person]:
    found: dict[Any, Person] = {}
    people = with_rating_id() if field == "rating_id" else Person.objects.all()
    for chunk in _chunks(sorted(set(keys))):
        for person in people.filter(**{f"{field}__in": chunk}):
            found[getattr(person, field)] = person
    return found


def _merge(source: Person, into: Person) -> None:
    """Make ``source`` (a person with an ID and no account) part of ``into``. ``source``
    stays, empty, pointing at ``into``: links to its page made before still lead somewhere."""
    Entrant.objects.filter(profile=source).update(profile=into)
    rating_id, title, federation = source.rating_id, source.title, source.federation
    source.rating_id = ""
    source.merged_into = into
    source.save(update_fields=["rating_id", "merged_into"])
    into.rating_id = rating_id
    into.title = into.title or title
    into.federation = into.federation or federation
    into.save(update_fields=["rating_id", "title", "federation"])


def link_people(entrants: QuerySet[Entrant]) -> Linked:
    """Tie each of ``entrants`` to its person by the rules above, making the people not
    known yet; an entry with neither key is untied. Call it inside the transaction of the
    action that made or changed the entries."""
    rows = list(entrants.values_list("user_id", "person", "code", "name", "nation"))
    accounts: dict[int, tuple[str, str, str]] = {}
    ids: dict[str, tuple[str, str]] = {}
    for user_id, raw_id, code, name, nation in rows:
        rating_id = given_id(code, raw_id)
        if user_id is not None:
            known = accounts.get(user_id)
            if known is None or (rating_id and not known[2]):
                accounts[user_id] = (name, nation, rating_id)
        elif rating_id:
            ids.setdefault(rating_id, (name, nation))
    by_user = _people_by("user_id", accounts)
    by_id = _people_by("rating_id", [*ids, *(key[2] for key in accounts.values() if key[2])])
    new: list[Person] = []
    merged = 0
    for user_id, (name, nation, rating_id) in accounts.items():
        person = by_user.get(user_id)
        with_id = by_id.get(rating_id) if rating_id else None
        if person is None and with_id is not None and with_id.user_id is None:
            with_id.user_id = user_id
            with_id.save(update_fields=["user"])
        elif person is None:
            free = "" if with_id is not None else rating_id
            new.append(Person(user_id=user_id, name=name, federation=nation, rating_id=free))
        elif rating_id and not person.rating_id:
            if with_id is None:
                person.rating_id = rating_id
                person.save(update_fields=["rating_id"])
            elif with_id.user_id is None:
                _merge(with_id, person)
                merged += 1
    new += [
        Person(rating_id=rating_id, name=name, federation=nation)
        for rating_id, (name, nation) in ids.items()
        if rating_id not in by_id
    ]
    # The same person made at the same moment by another import: theirs stands.
    Person.objects.bulk_create(new, batch_size=CHUNK, ignore_conflicts=True)
    entrants.filter(user__isnull=False).update(
        profile_id=Subquery(Person.objects.filter(user_id=OuterRef("user_id")).values("pk")[:1])
    )
    entrants.filter(id_given(), user__isnull=True).update(
        profile_id=Subquery(with_rating_id().filter(rating_id=OuterRef("person")).values("pk")[:1])
    )
    entrants.filter(user__isnull=True, profile__isnull=False).exclude(id_given()).update(
        profile_id=None
    )
    return Linked(created=len(new), merged=merged)


@dataclass(frozen=True)
class KnownPerson:
    """A row of an import that belongs to a person the site knows already."""

    code: str
    rating_id: str
    person: int
    name: str
    federation: str
    entries: int  # the person's entries so far


def known_people(entrants: Iterable[EngineEntrant]) -> list[KnownPerson]:
    """The rows of an import whose rating-list ID is a known person's, by code."""
    rows = {given_id(e.code, e.person): e.code for e in entrants if given_id(e.code, e.person)}
    known = []
    for chunk in _chunks(sorted(rows)):
        people = with_rating_id().filter(rating_id__in=chunk).order_by("rating_id")
        values = people.annotate(count=Count("entries")).values_list(
            "rating_id", "pk", "name", "federation", "count"
        )
        for rating_id, pk, name, federation, count in values:
            known.append(KnownPerson(rows[rating_id], rating_id, pk, name, federation, count))
    return sorted(known, key=lambda k: k.code)
