{#
  reasoning_bin(col): the reasoning-token bin of marts.reasoning_accuracy, as a struct (bin, low, high):
  fixed, log-spaced edges, powers of 4 from 64, so the bins are [0, 64), [64, 256), [256, 1024),
  [1024, 4096), [4096, 16384) and [16384, inf) (high null).

  Why fixed and log-spaced: reasoning lengths are right-skewed over orders of magnitude (a few dozen
  tokens for an easy item, tens of thousands for a hard one), so equal-width bins would put nearly every
  answer in the first; quantile bins would move with each model's own distribution (and with every new
  response), so one bin would mean other lengths for two models, two families or two runs.  Fixed edges
  make a bin the same lengths everywhere; empty bins are simply absent.
#}
{% macro reasoning_bin(col) -%}
    {%- set edges = [64, 256, 1024, 4096, 16384] -%}
    struct_pack(
        bin := case {% for edge in edges %}when {{ col }} < {{ edge }} then {{ loop.index0 }} {% endfor %}else {{ edges | length }} end,
        low := case {% for edge in edges %}when {{ col }} < {{ edge }} then {{ ([0] + edges)[loop.index0] }} {% endfor %}else {{ edges[-1] }} end,
        high := case {% for edge in edges %}when {{ col }} < {{ edge }} then {{ edge }} {% endfor %}else null end
    )
{%- endmacro %}
