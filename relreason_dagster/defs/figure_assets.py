"""The report's figures as Dagster assets: one PNG per study, downstream of the marts it draws.

Each asset renders with :func:`relreason_dagster.results.figures.render` (the function
``relreason report`` uses too) into ``$RELREASON_HOME/plots/<figure>.png`` and puts the image in
its metadata, so the UI's asset page shows the same picture the report embeds.  They sit in the
``marts`` job, so ``relreason run`` redraws them after every dbt build.
"""

import base64

import dagster as dg

from relreason_dagster import paths
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.results.figures import FIGURES, FigureSpec, render, trace_figures

GROUP = "report"


def figure_markdown(spec: FigureSpec, png: bytes) -> str:
    """The image as a markdown data URI (what the UI's metadata view renders) under its caption."""
    encoded = base64.b64encode(png).decode("ascii")
    return f"**{spec.title}**\n\n![{spec.name}](data:image/png;base64,{encoded})\n\n{spec.caption}"


def figure_asset(spec: FigureSpec) -> dg.AssetsDefinition:
    """The asset that draws ``spec`` from its marts (in the DuckDB pool, like every step opening the file)."""

    @dg.asset(
        name=spec.asset_name,
        group_name=GROUP,
        pool=DUCKDB_POOL,
        deps=[dg.AssetKey(mart.split(".")) for mart in (*spec.marts, *spec.axis_marts)],
        tags=family_tag(spec.study),  # a run redraws the figures of the families it covers
        description=f"PNG: {spec.title}. {spec.caption}",
    )
    def _figure(context: dg.AssetExecutionContext, duckdb: DuckDBFile) -> dg.MaterializeResult:
        out_dir = paths.relreason_home() / "plots"
        with duckdb.get_connection() as con:
            png, counts = render(spec, con, out_dir)
        return dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(str(out_dir / spec.file_name)),
                "rows": sum(counts.values()),
                **{f"rows {mart}": n for mart, n in counts.items()},
                "plot": dg.MetadataValue.md(figure_markdown(spec, png)),
            }
        )

    return _figure


# The report's "Reasoning traces" figures are assets too: the UI shows them beside the study figures.
FIGURE_ASSETS: list[dg.AssetsDefinition] = [figure_asset(spec) for spec in (*FIGURES, *trace_figures())]
