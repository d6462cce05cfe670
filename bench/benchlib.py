"""What the benchmarks share: connecting, checking, percentiles."""

from __future__ import annotations

import os
import statistics

import psycopg


def connect(user: str, dbname: str) -> psycopg.Connection:
    return psycopg.connect(host=os.environ["DCA_PGHOST"], port=os.environ["DCA_PGPORT"],
                           user=user, dbname=dbname, autocommit=True)


def check(ok: bool, why: str) -> None:
    if not ok:
        raise SystemExit(f"bench: {why}")


def pct(sorted_xs: list[float], p: float) -> float:
    """Percentile with linear interpolation between closest ranks."""
    if len(sorted_xs) == 1:
        return sorted_xs[0]
    k = (len(sorted_xs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (k - lo)


def summary(xs: list[float]) -> dict:
    s = sorted(xs)
    return {"n": len(s), "p50": pct(s, 50), "p95": pct(s, 95), "p99": pct(s, 99),
            "mean": statistics.fmean(s), "max": s[-1]}
