"""Realistic synthetic entrants for demos, tests and benchmarks.

Nations follow a Zipf-like law ``share_i ∝ 1 / i^s`` with ``s`` chosen so that
the largest nation holds ``largest_share`` of the entries; ratings lie around
1900–2500; a share of the persons hold two or three entries. Everything comes
from the stream ``(seed, "entrants")``, so the same arguments give the same file.
"""

from __future__ import annotations

from .entrants import Entrant
from .rng import ChanceStream

FEDERATIONS = (
    "GER ITA RUS USA POL CZE ESP FRA NED ENG BRA ARG UKR BLR SWE AUT SVK HUN BEL DEN "
    "SUI FIN NOR LTU LAT EST SLO CRO SRB BUL ROU GRE TUR ISR CAN AUS NZL IND CHN JPN "
    "MEX CHI PER COL URU POR IRL SCO WLS ISL LUX KAZ UZB GEO ARM AZE MDA RSA EGY IRI "
    "VEN ECU CUB BIH MKD MNE ALB CYP MLT QAT UAE SGP MAS PHI INA VIE MGL KGZ TJK"
).split()

FIRST = (
    "Anna Luca Marco Giulia Peter Jan Olga Ivan Maria Pablo Sofia Hans Eva Karl Lena "
    "Tomas Nina Piotr Ewa Igor Clara Felix Irina Jonas Marta Diego Laura Pavel Sara Emil"
).split()
LAST_PARTS = (
    "ber ni ko va ro li sa to man ski son ez ova ner del mar tin gar ros lin ber ova "
    "ric dos fer hol kov rin sel"
).split()
LAST_HEADS = "Al Be Ca Do Fa Ga Ha Ka La Ma Na Pe Ro Sa Ta Va Wo Zi Bru Kra".split()


def nation_shares(nations: int, largest_share: float) -> list[float]:
    """Zipf-like shares of ``nations`` nations whose largest is ``largest_share``."""
    if nations < 1:
        raise ValueError("at least one nation")
    if nations == 1:
        return [1.0]
    if not 1.0 / nations <= largest_share < 1.0:
        raise ValueError(f"the largest share must lie in [1/{nations}, 1)")

    def first_share(s: float) -> float:
        total: float = sum(1.0 / (i**s) for i in range(1, nations + 1))
        return 1.0 / total

    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if first_share(mid) < largest_share:
            lo = mid
        else:
            hi = mid
    weights = [1.0 / (i**hi) for i in range(1, nations + 1)]
    total = sum(weights)
    return [w / total for w in weights]


def _counts(count: int, shares: list[float]) -> list[int]:
    """Largest-remainder rounding of ``count × shares`` (every nation at least 1 when possible)."""
    raw = [count * s for s in shares]
    counts = [int(x) for x in raw]
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[: count - sum(counts)]:
        counts[i] += 1
    return counts


def make_entrants(
    count: int,
    seed: str,
    *,
    nations: int = 60,
    largest_share: float = 0.12,
    multi_entry_share: float = 0.03,
) -> list[Entrant]:
    """``count`` entrants with codes ``E000001``…, in code order."""
    if count < 1:
        raise ValueError("count must be at least 1")
    if not 1 <= nations <= len(FEDERATIONS):
        raise ValueError(f"nations must lie in 1..{len(FEDERATIONS)}")
    rng = ChanceStream(seed, "entrants")
    feds = list(FEDERATIONS)
    rng.shuffle(feds)
    counts = _counts(count, nation_shares(nations, largest_share))
    out: list[Entrant] = []
    person_no = 0
    for nation, wanted in zip(feds, counts, strict=False):
        made = 0
        while made < wanted:
            person_no += 1
            entries = 1
            if rng.uniform() < multi_entry_share:
                entries = 2 + (rng.below(3) == 0)
            entries = min(entries, wanted - made)
            name = (
                f"{LAST_HEADS[rng.below(len(LAST_HEADS))]}"
                f"{LAST_PARTS[rng.below(len(LAST_PARTS))]}"
                f"{LAST_PARTS[rng.below(len(LAST_PARTS))]}, {FIRST[rng.below(len(FIRST))]}"
            )
            spread = sum(rng.uniform() for _ in range(4)) - 2.0
            rating = max(1500, min(2750, round(2200 + 170 * spread)))
            person = f"P{person_no:06d}"
            email = f"{person.lower()}@example.org"
            for _ in range(entries):
                made += 1
                code = f"E{len(out) + 1:06d}"
                out.append(Entrant(code, name, nation, rating, person, email))
    return out
