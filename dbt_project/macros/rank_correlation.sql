{#
  Spearman's rank correlation and its p-value, written once (tests/unit/reasoning/test_rank_correlation.py renders
  these very macros and checks them against scipy.stats.spearmanr, or a closed form without scipy).

  avg_rank(col, partition): the rank of col within partition, ties given the mean of the ranks they span
    (the rank Spearman's rho needs: a binary outcome has two tied blocks).  rho is then corr() of the two
    avg_rank columns (Pearson's r on ranks).
  spearman_p(r, n): the two-sided p-value of rho = r on n pairs by the t-distribution with n - 2 degrees
    of freedom, t = r * sqrt((n - 2) / (1 - r^2)): the approximation scipy.stats.spearmanr uses (not an
    exact permutation test; fine from n of about 10, and every row says its n).  The t tail is the
    closed form for integer df (Abramowitz & Stegun 26.7.3-4), where cos^2 = 1 - r^2 and sin = |r|:
      df even: p = 1 - |r| * sum_{k=0..df/2-1} c_k (1-r^2)^k,  c_k = Gamma(k+1/2) / (Gamma(1/2) Gamma(k+1))
      df odd:  p = 1 - (2/pi) (asin|r| + |r| sqrt(1-r^2) sum_{k=0..(df-3)/2} d_k (1-r^2)^k),
               d_k = Gamma(k+1) Gamma(3/2) / Gamma(k+3/2)
    Null when n < 3 or r is null (a constant side: every answer right, or every trace the same length).
    A p-value below about 1e-12 reads as 0 (1 minus a sum in doubles), and so does |r| within 1e-12 of 1:
    DuckDB's corr() gives -0.9999999999999998 for a perfect inverse ranking, where the series above would
    leave a rounding residue of ~1e-8 instead of 0.
#}
{% macro avg_rank(col, partition) -%}
    (rank() over (partition by {{ partition }} order by {{ col }})
     + (count(*) over (partition by {{ partition }}, {{ col }}) - 1) / 2.0)
{%- endmacro %}

{% macro spearman_p(r, n) -%}
    case
        when ({{ r }}) is null or isnan({{ r }}) or ({{ n }}) < 3 then null
        when abs({{ r }}) >= 1 - 1e-12 then 0.0
        when (({{ n }}) - 2) % 2 = 0 then greatest(0.0, 1.0 - abs({{ r }}) * coalesce(list_sum(list_transform(
            range(0, (({{ n }}) - 2) // 2),
            lambda k: exp(lgamma(k + 0.5) - lgamma(0.5) - lgamma(k + 1.0)) * power(1.0 - ({{ r }}) * ({{ r }}), k)
        )), 0.0))
        else greatest(0.0, 1.0 - 2.0 / pi() * (asin(abs({{ r }})) + abs({{ r }}) * sqrt(1.0 - ({{ r }}) * ({{ r }}))
            * coalesce(list_sum(list_transform(
                range(0, (({{ n }}) - 3) // 2),
                lambda k: exp(lgamma(k + 1.0) + lgamma(1.5) - lgamma(k + 1.5)) * power(1.0 - ({{ r }}) * ({{ r }}), k)
            )), 0.0)))
    end
{%- endmacro %}
