{#
  Statistics of repeated sampling and paired comparisons, written once (tests/unit/marts/test_sampling_stats.py
  renders these very macros and checks them against closed forms in Python).

  pass_at_k(n, c, k): the unbiased pass@k estimator of Chen et al. (2021, "Evaluating Large Language
    Models Trained on Code", eq. 1) for one prompt with n draws of which c are right:
    1 - C(n-c, k) / C(n, k), computed as 1 - prod_{i=n-c+1..n} (1 - k/i) so large n never overflows.
    1 when fewer than k draws are wrong; null when n < k (not enough draws to say).
  cluster_low/high(value): a 95% interval for the mean of per-prompt values (an aggregate): the K draws of
    one prompt are one cluster, so the prompt's mean is the unit and the standard error is the spread of
    those means over sqrt(prompts).  Treating K correlated draws as K independent samples (a Wilson
    interval on all draws) would shrink the interval by up to sqrt(K) without any new information.
  design_effect(n, k, g, s_kk, s_kn, s_nn): how much the draws of one prompt inflate the variance of a
    share k / n pooled over g prompts (clusters), for a Wilson interval on the effective size n / deff
    (Kish's design effect).  The clustered variance is the ratio estimator's, g / (g - 1) *
    sum((k_i - p n_i)^2) / n^2, with s_kk = sum(k_i^2), s_kn = sum(k_i n_i), s_nn = sum(n_i^2) over the
    prompts; the binomial one is p (1 - p) / n.  Why this and not cluster_low/high: a bin of the reasoning
    marts holds some draws of a prompt, not all, so the prompt's mean is no unit there; and with one draw
    per prompt (n = g) deff is 1 and the interval is the Wilson interval it always was.  Never below 1
    (draws that disagree more than chance would claim more than independent answers tell).
  mcnemar_p(b, c): the exact McNemar p-value (two-sided) for b pairs where only A is right and c where
    only B is: a binomial test of min(b, c) out of b + c at 1/2, via lgamma so thousands of pairs are fine.
#}
{% macro pass_at_k(n, c, k) -%}
    case
        when {{ n }} < {{ k }} then null
        when {{ n }} - {{ c }} < {{ k }} then 1.0
        when {{ c }} = 0 then 0.0
        else 1.0 - exp(list_sum(list_transform(range(({{ n }}) - ({{ c }}) + 1, ({{ n }}) + 1),
                                               lambda i: ln(1.0 - ({{ k }})::double / i))))
    end
{%- endmacro %}

{% macro cluster_low(value) -%}
    greatest(0.0, avg({{ value }}) - 1.96 * coalesce(stddev_samp({{ value }}), 0) / sqrt(count({{ value }})))
{%- endmacro %}

{% macro cluster_high(value) -%}
    least(1.0, avg({{ value }}) + 1.96 * coalesce(stddev_samp({{ value }}), 0) / sqrt(count({{ value }})))
{%- endmacro %}

{% macro mcnemar_p(b, c) -%}
    case when ({{ b }}) + ({{ c }}) = 0 then 1.0 else
    least(1.0, 2.0 * list_sum(list_transform(range(0, least({{ b }}, {{ c }}) + 1),
        lambda i: exp(lgamma(({{ b }}) + ({{ c }}) + 1) - lgamma(i + 1) - lgamma(({{ b }}) + ({{ c }}) - i + 1)
                 - (({{ b }}) + ({{ c }})) * ln(2.0)))))
    end
{%- endmacro %}

{% macro design_effect(n, k, g, s_kk, s_kn, s_nn) -%}
    case
        when ({{ n }}) <= ({{ g }}) or ({{ g }}) < 2 or ({{ k }}) = 0 or ({{ k }}) = ({{ n }}) then 1.0
        else greatest(1.0,
            (({{ g }})::double / (({{ g }}) - 1)
             * (({{ s_kk }}) - 2.0 * ({{ k }}) / ({{ n }}) * ({{ s_kn }})
                + (({{ k }})::double / ({{ n }})) ^ 2 * ({{ s_nn }}))
             / (({{ n }})::double ^ 2))
            / ((({{ k }})::double / ({{ n }})) * (1 - ({{ k }})::double / ({{ n }})) / ({{ n }})))
    end
{%- endmacro %}
