"""A bounded read load on a running site, on this machine only.

    python -m tests.load [--base http://127.0.0.1:8000] [--users 16] [--seconds 20]

``--users`` clients each request the public pages and API answers of the first published
stage they find, one after another, for ``--seconds``; then the run prints requests per
second, the error count and the p50/p95/p99 latencies, overall and per kind of page. Only
loopback addresses are accepted: the script refuses any other host. Start the site first,
e.g. ``make run`` (the demo), or gunicorn for production-like figures.
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
from ipaddress import ip_address
from socket import gethostbyname
from urllib.parse import urlsplit


def loopback_only(base: str) -> str:
    host = urlsplit(base).hostname or ""
    if not ip_address(gethostbyname(host)).is_loopback:
        raise SystemExit(f"refusing {host}: this load runs against this machine only")
    return base.rstrip("/")


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def targets(base: str) -> dict[str, str]:
    """Addresses of each kind, from the first published stage the API lists."""
    _, body = fetch(f"{base}/api/stages/?status=published")
    stage = json.loads(body)["results"][0]
    slug, order = stage["tournament"], stage["order"]
    _, body = fetch(f"{base}/api/groups/?stage={stage['id']}")
    group = json.loads(body)["results"][0]
    prefix = f"{base}/t/{slug}/s/{order}"
    return {
        "home": f"{base}/",
        "tournament": f"{base}/t/{slug}/",
        "stage": f"{prefix}/",
        "group": f"{prefix}/g/{group['number']}/",
        "standings": f"{prefix}/g/{group['number']}/standings/",
        "crosstable": f"{prefix}/g/{group['number']}/crosstable/",
        "ranking": f"{prefix}/ranking/",
        "api-group": f"{base}/api/groups/{group['id']}/",
        "api-standings": f"{base}/api/groups/{group['id']}/standings/",
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    base = loopback_only(args.base)
    pages = list(targets(base).items())
    timings: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def user(offset: int) -> None:
        i = offset
        while time.monotonic() < stop:
            kind, url = pages[i % len(pages)]
            i += 1
            started = time.perf_counter()
            status, _ = fetch(url)
            took = time.perf_counter() - started
            with lock:
                timings[kind].append(took)
                if status >= 400:
                    errors[kind] += 1

    threads = [threading.Thread(target=user, args=(n,)) for n in range(args.users)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    every = [t for ts in timings.values() for t in ts]
    print(f"{args.users} users for {args.seconds:.0f} s against {base}")
    print(
        f"all: {len(every) / elapsed:.1f} requests/s, {sum(errors.values())} errors, "
        f"p50 {1000 * percentile(every, 0.5):.0f} ms, p95 {1000 * percentile(every, 0.95):.0f} "
        f"ms, p99 {1000 * percentile(every, 0.99):.0f} ms"
    )
    for kind, ts in timings.items():
        print(
            f"  {kind:14} {len(ts):6d} requests, {errors[kind]} errors, "
            f"median {1000 * statistics.median(ts):.0f} ms, "
            f"p95 {1000 * percentile(ts, 0.95):.0f} ms"
        )


if __name__ == "__main__":
    main()
