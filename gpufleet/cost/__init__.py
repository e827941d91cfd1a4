"""Cost before deploy: price a fleet from the GPU catalogue, check it against its budget, diff two runs.

Two layers:

1. Pure pricing over `PricedPool` (cloud, region, instance types, size, spot share, on-demand base,
   usage profile, weekly schedule). No graph, no spec: table-tested against hand-computed figures.
2. Adapters: `estimate_stack` prices a ResourceGraph (the GPU pools found by the cost rules' pool model,
   with the stack spec's usage profile overlaid by pool name); `estimate_spec` prices a FleetSpec alone.

Conventions, stated once and shown in every report:

- A month is 730 hours (8,760 h / 12), i.e. 30.42 days of 24 h. A weekly schedule's running hours per
  month are its running hours per week x 730 / 168.
- A usage profile is a list of steps, hours a day at a size (the spec's ``usage.profile``; its one-step
  form ``hours_per_day`` at ``average_size`` is one step). The month of a pool with a profile is

      sum over steps of (cost an hour at the step's size) x hours_per_day x in-use days
      + (cost an hour at size.min) x (scheduled hours a month - the steps' hours a month)

  i.e. every scheduled hour that no step covers is priced at size.min. The cost an hour at a size splits
  it into on-demand and spot instances as below, so it is not proportional to the size.
- ``days_per_month`` counts calendar days. A schedule that stops the pool on some days of the week
  (weekends) removes those days in proportion: 30 days with weekends off are 30 x 5/7 in-use days. The
  steps' hours a day must fit in the longest running day the schedule leaves.
- Spot share: the on-demand base runs on demand; of the instances above it, ``spot_percent`` run at the
  spot price (catalogue on-demand less the type's typical spot discount), the rest on demand. Counts are
  not rounded: 5 instances at 50% spot cost 2.5 x on-demand + 2.5 x spot.
- A pool listing several instance types is priced at the dearest of them, for the estimate and the
  envelope alike: the mixed-instances policy may land on any of them, and a budget check must not
  under-state. The line names the type used and the types passed over.
- Without a usage profile (a pool outside the spec, or a spec pool without ``usage``) the estimate is
  the pool at its maximum size for every hour its schedule lets it run, and the line says so.
- The envelope is every pool at maximum size for 730 h, spot share at the spot price; ``hourly_worst``
  is every pool at maximum size with every instance on demand (the GF-COST-007 worst case).
- Prices stay in the currency they were published in; each line converts to the report's currency with
  the catalogue's rates, and the report shows the rate and its date.

The parts, one a file: ``units`` (the month, prose figures), ``schedule`` (weekly schedules from cron
recurrences), ``model`` (inputs, lines, the report), ``lookup`` (catalogue prices and rates),
``pricing`` (pools, the report, the budget check), ``other_lines`` (volumes, hourly services, bucket
storage, transfer), ``estimate`` (spec and program adapters) with ``services``, ``storage`` and
``props`` (what it reads off the program), ``diff`` (against the base branch) and ``report``
(text and markdown).
"""

from __future__ import annotations

from gpufleet.cost.diff import CostDiff, DiffRow, diff
from gpufleet.cost.estimate import POOL_TAG, estimate_spec, estimate_stack
from gpufleet.cost.lookup import unpriced_types
from gpufleet.cost.model import (
    REPORT_VERSION,
    BudgetLike,
    BudgetView,
    Conversion,
    CostError,
    CostReport,
    OtherLine,
    PoolLine,
    PricedPool,
    PriceUsed,
    StepCost,
    UsageLevel,
    UsageProfile,
    split_capacity,
)
from gpufleet.cost.other_lines import (
    IT_CLASS,
    IT_RULE,
    IT_TIERS,
    bucket_storage_line,
    fixed_hourly_line,
    lifecycle_stages,
    standalone_volume_line,
    transfer_line,
    volume_line,
)
from gpufleet.cost.pricing import (
    PROFILE_RULE,
    budget_status,
    budget_used_percent,
    cost_block,
    price_pool,
    price_pools,
)
from gpufleet.cost.report import (
    TableView,
    other_table,
    pool_table,
    render_diff_markdown,
    render_diff_text,
    render_markdown,
    render_text,
    step_lines,
    text_summary,
    text_title,
)
from gpufleet.cost.schedule import WEEKDAYS, WeeklySchedule
from gpufleet.cost.units import DAYS_PER_MONTH, HOURS_PER_MONTH, HOURS_PER_WEEK

__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "HOURS_PER_WEEK",
    "IT_CLASS",
    "IT_RULE",
    "IT_TIERS",
    "POOL_TAG",
    "PROFILE_RULE",
    "REPORT_VERSION",
    "WEEKDAYS",
    "BudgetLike",
    "BudgetView",
    "Conversion",
    "CostDiff",
    "CostError",
    "CostReport",
    "DiffRow",
    "OtherLine",
    "PoolLine",
    "PriceUsed",
    "PricedPool",
    "StepCost",
    "TableView",
    "UsageLevel",
    "UsageProfile",
    "WeeklySchedule",
    "bucket_storage_line",
    "budget_status",
    "budget_used_percent",
    "cost_block",
    "diff",
    "estimate_spec",
    "estimate_stack",
    "fixed_hourly_line",
    "lifecycle_stages",
    "other_table",
    "pool_table",
    "price_pool",
    "price_pools",
    "render_diff_markdown",
    "render_diff_text",
    "render_markdown",
    "render_text",
    "split_capacity",
    "standalone_volume_line",
    "step_lines",
    "text_summary",
    "text_title",
    "transfer_line",
    "unpriced_types",
    "volume_line",
]
