"""Spearman's rho and its p-value as the reasoning marts compute them, against scipy (or closed forms).

``marts.reasoning_correlation`` ranks with ``avg_rank`` and tests with ``spearman_p``
(``dbt_project/macros/rank_correlation.sql``); this renders those very macros and runs them in DuckDB on
tied, binary-outcome data like the mart's (reasoning tokens against right/wrong).  With scipy installed
the reference is ``scipy.stats.spearmanr`` (same t approximation with n - 2 df); without it, the closed
forms of the t tail for df = 1 and 2 and a rho computed by hand.  The bins' macro is checked too.
"""

from __future__ import annotations

import math
import random

import duckdb
import jinja2
import pytest

from relreason_dagster import paths

MACROS = paths.DBT_PROJECT_DIR / "macros"


def _macros(name: str) -> object:
    env = jinja2.Environment(autoescape=False)  # noqa: S701 - SQL text, not HTML
    return env.from_string((MACROS / f"{name}.sql").read_text()).module


RANKS = _macros("rank_correlation")
BINS = _macros("reasoning_bins")


def _sql_spearman(con: duckdb.DuckDBPyConnection) -> dict[int, tuple[float | None, float | None, int]]:
    """``{group: (rho, p, n)}`` of table ``t(g, x, y)`` as the mart computes them."""
    ranked = f"SELECT g, {RANKS.avg_rank('x', 'g')} AS rx, {RANKS.avg_rank('y::integer', 'g')} AS ry FROM t"
    agg = (
        "SELECT g, count(*) AS n, CASE WHEN stddev_pop(rx) > 0 AND stddev_pop(ry) > 0"
        f" THEN corr(rx, ry) END AS rho FROM ({ranked}) GROUP BY g"
    )
    rows = con.execute(f"SELECT g, rho, {RANKS.spearman_p('rho', 'n')}, n FROM ({agg}) ORDER BY g").fetchall()
    return {g: (rho, p, n) for g, rho, p, n in rows}


def _groups() -> list[tuple[int, list[tuple[int, bool]]]]:
    """Tokens with ties and a binary outcome, n from 3 to 400, odd and even, some correlated."""
    rng = random.Random(47)
    groups = []
    for g, n in enumerate([3, 4, 5, 8, 9, 20, 21, 57, 200, 401]):
        pairs = []
        for _ in range(n):
            tokens = int(rng.lognormvariate(6, 1.2)) // 10 * 10  # rounded: ties
            right = rng.random() < (0.8 if tokens < 400 else 0.4) if g % 2 else rng.random() < 0.5
            pairs.append((tokens, right))
        groups.append((g, pairs))
    return groups


def _load(groups: list[tuple[int, list[tuple[int, bool]]]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (g INTEGER, x INTEGER, y BOOLEAN)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(g, x, y) for g, pairs in groups for x, y in pairs])
    return con


@pytest.mark.filterwarnings("ignore:An input array is constant")
def test_rho_and_p_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    groups = _groups()
    got = _sql_spearman(_load(groups))
    compared = 0
    for g, pairs in groups:
        rho, p, n = got[g]
        x, y = zip(*pairs, strict=True)
        ref = stats.spearmanr(x, [int(v) for v in y])
        assert n == len(pairs)
        if math.isnan(ref.statistic):
            assert rho is None and p is None
            continue
        assert rho == pytest.approx(ref.statistic, abs=1e-12), g
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12), (g, n, rho)
        compared += 1
    assert compared >= 8


def test_p_matches_the_closed_forms_of_small_df():
    """df = 1: p = 1 - 2 asin|r| / pi; df = 2: p = 1 - |r| (t tail in closed form, r for t)."""
    con = duckdb.connect()
    for r in (0.0, 0.1, -0.5, 0.9, 0.999):
        (p3,) = con.execute(f"SELECT {RANKS.spearman_p(str(r), '3')}").fetchone()
        (p4,) = con.execute(f"SELECT {RANKS.spearman_p(str(r), '4')}").fetchone()
        assert p3 == pytest.approx(1 - 2 * math.asin(abs(r)) / math.pi, abs=1e-12)
        assert p4 == pytest.approx(1 - abs(r), abs=1e-12)
    # Too few pairs, a constant side, a perfect correlation.
    assert con.execute(f"SELECT {RANKS.spearman_p('0.5', '2')}").fetchone()[0] is None
    assert con.execute(f"SELECT {RANKS.spearman_p('NULL::DOUBLE', '50')}").fetchone()[0] is None
    assert con.execute(f"SELECT {RANKS.spearman_p('1.0', '50')}").fetchone()[0] == 0.0


def test_rho_by_hand_with_ties():
    """x = 10, 10, 30, 40 (ranks 1.5, 1.5, 3, 4), y = 0, 1, 1, 1 (ranks 1, 3, 3, 3): rho = 0.7746."""
    con = _load([(0, [(10, False), (10, True), (30, True), (40, True)])])
    rho, p, n = _sql_spearman(con)[0]
    rx, ry = [1.5, 1.5, 3, 4], [1, 3, 3, 3]
    mx, my = sum(rx) / 4, sum(ry) / 4
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    hand = cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    assert n == 4 and rho == pytest.approx(hand, abs=1e-12) and p == pytest.approx(1 - hand, abs=1e-12)


def test_bins_are_the_documented_log_spaced_edges():
    con = duckdb.connect()
    tokens = [0, 63, 64, 255, 256, 1023, 1024, 4095, 4096, 16383, 16384, 10**6]
    sql = f"SELECT x, {BINS.reasoning_bin('x')} AS b FROM unnest(?::INTEGER[]) AS u(x) ORDER BY x"
    got = [(x, b["bin"], b["low"], b["high"]) for x, b in con.execute(sql, [tokens]).fetchall()]
    edges = [0, 64, 256, 1024, 4096, 16384, None]
    for x, b, low, high in got:
        assert edges[b] <= x and (high is None or x < high) and (low, high) == (edges[b], edges[b + 1])
    assert [b for _, b, _, _ in got] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_p_is_zero_for_rho_a_rounding_away_from_one():
    """DuckDB's corr() gives -0.9999999999999998 for a perfect inverse ranking; p must read 0 for it, not
    the ~1e-8 residue the series leaves (the fresh-clone failure of issue 53, item 9)."""
    con = duckdb.connect()
    for r in ("-0.9999999999999998", "0.9999999999999998", "-1.0"):
        for n in ("9", "10", "101"):
            assert con.execute(f"SELECT {RANKS.spearman_p(r, n)}").fetchone()[0] == 0.0, (r, n)
    # A perfect inverse ranking through corr(), whatever rounding this DuckDB build gives it.
    inverse = duckdb.connect()
    inverse.execute("CREATE TABLE t AS SELECT 0 AS g, i AS x, 20 - i AS y FROM range(20) r(i)")
    (r_inv,) = inverse.execute("SELECT corr(x, y) FROM t").fetchone()
    assert abs(r_inv) == pytest.approx(1.0, abs=1e-15)
    (p_inv,) = inverse.execute(f"SELECT {RANKS.spearman_p(repr(r_inv), '20')}").fetchone()
    assert p_inv == 0.0
