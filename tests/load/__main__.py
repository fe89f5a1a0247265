"""A bounded read load on a running site, on this machine only.

    python -m tests.load [--base http://127.0.0.1:8000] [--users 16] [--seconds 20]
                         [--rate R] [--groups N] [--gzip] [--json FILE] [--static PATH]

``--users`` clients each request the public pages and API answers of the first published
stage they find, one after another, for ``--seconds``; then the run prints requests per
second, the error count and the p50/p95/p99 latencies, overall and per kind of page. Only
loopback addresses are accepted: the script refuses any other host. Start the site first,
e.g. ``make run`` (the demo), or gunicorn for production-like figures.

By default each user sends its next request as soon as the last one is answered (a closed
loop: the site's throughput). With ``--rate`` the users are paced instead: together they
offer ``--rate`` requests per second, each user on a fixed schedule (a late request is sent
at once, and counted late), so the latencies are those of that load. ``--groups N`` spreads
the users over the stage's first N groups (user n reads group n mod N); ``--gzip`` asks for
compressed answers, as browsers do; ``--json`` also writes every latency to FILE (what
``tests/bench/load.py`` merges from several client processes); ``--static PATH`` reads only
that address (a static file: the floor the pages are compared with).

The functions (``targets``, ``run_load``, ``summary``, ``report_lines``) are what
``tests/bench/load.py`` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from ipaddress import ip_address
from socket import gethostbyname
from urllib.parse import urlsplit


def loopback_only(base: str) -> str:
    host = urlsplit(base).hostname or ""
    if not ip_address(gethostbyname(host)).is_loopback:
        raise SystemExit(f"refusing {host}: this load runs against this machine only")
    return base.rstrip("/")


def fetch(url: str, *, gzip: bool = False, timeout: float = 30) -> tuple[int, bytes]:
    """The status and the body (as sent: still compressed when ``gzip``)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except (urllib.error.URLError, OSError):
        return 599, b""  # refused, reset or timed out: counted as an error


def targets(base: str, groups: int = 1) -> list[dict[str, str]]:
    """Addresses of each kind, from the first published stage the API lists: one dict per
    group (its first ``groups`` groups), the stage's pages the same in each."""
    _, body = fetch(f"{base}/api/stages/?status=published")
    stage = json.loads(body)["results"][0]
    slug, order = stage["tournament"], stage["order"]
    _, body = fetch(f"{base}/api/groups/?stage={stage['id']}&page_size={max(1, min(groups, 500))}")
    prefix = f"{base}/t/{slug}/s/{order}"
    found = []
    for group in json.loads(body)["results"][:groups]:
        g = f"{prefix}/g/{group['number']}"
        found.append(
            {
                "home": f"{base}/",
                "tournament": f"{base}/t/{slug}/",
                "stage": f"{prefix}/",
                "group": f"{g}/",
                "standings": f"{g}/standings/",
                "crosstable": f"{g}/crosstable/",
                "game": f"{g}/games/1/",
                "ranking": f"{prefix}/ranking/",
                "api-group": f"{base}/api/groups/{group['id']}/",
                "api-standings": f"{base}/api/groups/{group['id']}/standings/",
            }
        )
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


@dataclass
class LoadResult:
    """What a run measured: every request's latency (seconds) and the errors, by kind."""

    users: int
    seconds: float  # the run's wall time, from the first request to the last answer
    rate: float | None = None  # the offered requests/s when paced
    timings: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    late: int = 0  # paced requests sent after their time (the previous one was still out)

    def as_json(self) -> dict:
        return self.__dict__

    @classmethod
    def merge(cls, parts: list[dict]) -> LoadResult:
        """One result of several client processes run side by side."""
        timings: dict[str, list[float]] = defaultdict(list)
        errors: dict[str, int] = defaultdict(int)
        for part in parts:
            for kind, values in part["timings"].items():
                timings[kind].extend(values)
            for kind, count in part["errors"].items():
                errors[kind] += count
        rates = [p["rate"] for p in parts if p["rate"]]
        return cls(
            users=sum(p["users"] for p in parts),
            seconds=max(p["seconds"] for p in parts),
            rate=sum(rates) if rates else None,
            timings=dict(timings),
            errors=dict(errors),
            late=sum(p["late"] for p in parts),
        )


def run_load(
    groups: list[dict[str, str]],
    users: int,
    seconds: float,
    *,
    rate: float | None = None,
    gzip: bool = False,
) -> LoadResult:
    """``users`` threads read the pages of ``groups`` (user n those of group n mod N, the
    kinds in turn) for ``seconds``: back to back, or paced to ``rate`` requests/s in all."""
    timings: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    late = [0]
    lock = threading.Lock()
    interval = users / rate if rate else 0.0
    began = time.monotonic()
    stop = began + seconds

    def user(n: int) -> None:
        pages = list(groups[n % len(groups)].items())
        i = n
        # Paced users start spread over one interval, so the offered load is even.
        due = began + interval * n / users
        while True:
            if interval:
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                elif wait < -0.001:
                    with lock:
                        late[0] += 1
                due += interval
            if time.monotonic() >= stop:
                break
            kind, url = pages[i % len(pages)]
            i += 1
            started = time.perf_counter()
            status, _ = fetch(url, gzip=gzip)
            took = time.perf_counter() - started
            with lock:
                timings[kind].append(took)
                if status >= 400:
                    errors[kind] += 1

    threads = [threading.Thread(target=user, args=(n,), daemon=True) for n in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return LoadResult(
        users=users,
        seconds=time.monotonic() - began,
        rate=rate,
        timings=dict(timings),
        errors=dict(errors),
        late=late[0],
    )


def summary(result: LoadResult) -> dict[str, float]:
    """Requests/s, errors and the p50/p95/p99 latencies (ms) over every kind."""
    every = [t for ts in result.timings.values() for t in ts]
    return {
        "requests": len(every),
        "per_second": len(every) / result.seconds if result.seconds else 0.0,
        "errors": sum(result.errors.values()),
        "p50": 1000 * percentile(every, 0.5),
        "p95": 1000 * percentile(every, 0.95),
        "p99": 1000 * percentile(every, 0.99),
    }


def report_lines(result: LoadResult, base: str) -> list[str]:
    s = summary(result)
    paced = f", paced to {result.rate:.0f} requests/s offered" if result.rate else ""
    lines = [
        f"{result.users} users for {result.seconds:.0f} s against {base}{paced}",
        f"all: {s['per_second']:.1f} requests/s, {s['errors']} errors, "
        f"p50 {s['p50']:.0f} ms, p95 {s['p95']:.0f} ms, p99 {s['p99']:.0f} ms"
        + (f", {result.late} sent late" if result.rate else ""),
    ]
    for kind, ts in result.timings.items():
        lines.append(
            f"  {kind:14} {len(ts):6d} requests, {result.errors.get(kind, 0)} errors, "
            f"median {1000 * statistics.median(ts):.0f} ms, "
            f"p95 {1000 * percentile(ts, 0.95):.0f} ms"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, help="offered requests/s in all (paced users)")
    parser.add_argument("--groups", type=int, default=1, help="spread the users over N groups")
    parser.add_argument("--gzip", action="store_true", help="ask for gzip, as browsers do")
    parser.add_argument("--json", help="also write every latency to this file")
    parser.add_argument(
        "--static", help="read only this address (e.g. a static file: the floor to compare with)"
    )
    args = parser.parse_args()
    base = loopback_only(args.base)
    if args.static:
        groups = [{"static": base + "/" + args.static.lstrip("/")}]
    else:
        groups = targets(base, args.groups)
    result = run_load(groups, args.users, args.seconds, rate=args.rate, gzip=args.gzip)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result.as_json(), out)
    print("\n".join(report_lines(result, base)))


if __name__ == "__main__":
    main()
