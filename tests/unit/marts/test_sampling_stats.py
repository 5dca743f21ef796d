"""The SQL statistics of repeated sampling and paired comparisons, against closed forms.

The marts compute pass@k, the clustered intervals and the exact McNemar p-value with the macros of
``dbt_project/macros/sampling.sql``; this test renders those very macros (Jinja, as dbt does) and runs
them in DuckDB, so what is checked is the SQL the marts run, not a Python copy of it.
"""

from __future__ import annotations

import math

import duckdb
import jinja2
import pytest

from relreason_dagster import paths

MACROS = paths.DBT_PROJECT_DIR / "macros"


def _macros(name: str) -> object:
    """The macros of ``macros/<name>.sql`` as callables returning their SQL text."""
    env = jinja2.Environment(autoescape=False)  # noqa: S701 - SQL text, not HTML
    return env.from_string((MACROS / f"{name}.sql").read_text()).module


SAMPLING = _macros("sampling")
INTERVALS = _macros("intervals")


def _closed_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), eq. 1 for one problem: 1 - C(n-c, k) / C(n, k)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_pass_at_k_matches_the_closed_form():
    con = duckdb.connect()
    cases = [(n, c, k) for n in range(1, 13) for c in range(n + 1) for k in range(1, n + 1)]
    con.execute("CREATE TABLE t (n INTEGER, c INTEGER, k INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", cases)
    sql = f"SELECT n, c, k, {SAMPLING.pass_at_k('n', 'c', 'k')} FROM t ORDER BY n, c, k"
    got = con.execute(sql).fetchall()
    assert len(got) == len(cases)
    for n, c, k, value in got:
        assert value == pytest.approx(_closed_pass_at_k(n, c, k), abs=1e-12), (n, c, k)
    # pass@1 is the share right; pass@n is "any draw right"; too few draws to say is null.
    assert con.execute(f"SELECT {SAMPLING.pass_at_k('5', '2', '1')}").fetchone()[0] == pytest.approx(0.4)
    assert con.execute(f"SELECT {SAMPLING.pass_at_k('5', '1', '5')}").fetchone()[0] == pytest.approx(1.0)
    assert con.execute(f"SELECT {SAMPLING.pass_at_k('2', '1', '3')}").fetchone()[0] is None
    # Large n stays finite (a product of ratios, not two huge binomials).
    big = con.execute(f"SELECT {SAMPLING.pass_at_k('200', '3', '100')}").fetchone()[0]
    assert big == pytest.approx(_closed_pass_at_k(200, 3, 100), rel=1e-9)


def _closed_mcnemar(b: int, c: int) -> float:
    """Exact two-sided McNemar: twice the binomial tail of min(b, c) out of b + c at 1/2, capped at 1."""
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 1), (1, 1), (0, 6), (2, 9), (10, 3), (40, 25), (300, 250)])
def test_mcnemar_exact_p_matches_the_binomial_tail(b, c):
    got = duckdb.connect().execute(f"SELECT {SAMPLING.mcnemar_p(str(b), str(c))}").fetchone()[0]
    assert got == pytest.approx(_closed_mcnemar(b, c), rel=1e-9, abs=1e-15)


def test_the_clustered_interval_is_wider_than_the_naive_one_when_draws_agree():
    """10 prompts x 5 draws; the draws of a prompt always agree (5 prompts always right, 5 never).

    There are 10 independent facts here, not 50: the interval over prompt means (clustered) is as wide
    as 10 coin flips allow, while a Wilson interval over all 50 draws claims sqrt(5) times the precision.
    """
    con = duckdb.connect()
    con.execute("CREATE TABLE draws (prompt INTEGER, draw INTEGER, correct BOOLEAN)")
    con.executemany(
        "INSERT INTO draws VALUES (?, ?, ?)", [(p, d, p < 5) for p in range(10) for d in range(5)]
    )
    clustered = con.execute(
        f"SELECT {SAMPLING.cluster_low('p')}, {SAMPLING.cluster_high('p')} FROM "
        "(SELECT prompt, avg(correct::int) AS p FROM draws GROUP BY prompt)"
    ).fetchone()
    naive = con.execute(
        "SELECT "
        f"{INTERVALS.wilson_low('count(*) filter (where correct)', 'count(*)')}, "
        f"{INTERVALS.wilson_high('count(*) filter (where correct)', 'count(*)')} FROM draws"
    ).fetchone()
    # By hand: prompt means 0/1, mean 0.5, sd sqrt(10/36) = 0.527, se 0.1667 -> 0.5 +- 0.3267.
    assert clustered[0] == pytest.approx(0.5 - 1.96 * math.sqrt(10 / 36) / math.sqrt(10), abs=1e-9)
    assert clustered[1] == pytest.approx(0.5 + 1.96 * math.sqrt(10 / 36) / math.sqrt(10), abs=1e-9)
    assert clustered[1] - clustered[0] > 1.5 * (naive[1] - naive[0])
    assert clustered[0] < naive[0] < 0.5 < naive[1] < clustered[1]
