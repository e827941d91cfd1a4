"""Rendering: the cost report and its diff as text and markdown tables, every renderer showing the same
formatted cells."""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.cost.diff import CostDiff
from gpufleet.cost.model import CostReport, PoolLine, PriceUsed
from gpufleet.cost.owned import render_owned
from gpufleet.cost.pricing import budget_status
from gpufleet.cost.units import HOURS_PER_MONTH, _money, _num, _signed


def _size(line: PoolLine) -> str:
    return f"{line.min_size}-{line.max_size}"


def _spot(line: PoolLine) -> str:
    base = f", base {line.on_demand_base}" if line.on_demand_base else ""
    return f"{_num(line.spot_percent)}%{base}"


def _pool_rows(report: CostReport) -> list[list[str]]:
    rows = []
    for line in report.pools:
        rows.append(
            [
                line.pool,
                f"{line.cloud} {line.region}",
                line.instance_type,
                _size(line),
                _spot(line),
                f"{_num(line.on_demand.amount, 5)} / {_num(line.spot.amount, 5)} {line.on_demand.currency}",
                _money(line.hourly_min),
                _money(line.hourly_max),
                _num(line.scheduled_hours),
                _num(line.instance_hours),
                _money(line.monthly_estimate),
                _money(line.monthly_envelope),
            ]
        )
    return rows


_POOL_HEADER = [
    "pool",
    "cloud region",
    "type",
    "size",
    "spot",
    "price/h od / spot",
    "hourly min",
    "hourly max",
    "sched h/mo",
    "inst-h/mo",
    "monthly est",
    "envelope/mo",
]
_OTHER_HEADER = ["item", "quantity", "price", "hourly max", "monthly est", "envelope/mo"]


def _other_rows(report: CostReport) -> list[list[str]]:
    return [
        [
            o.key,
            o.quantity,
            f"{_num(o.price.amount, 5)} {o.price.currency}/{o.price.unit}",
            _money(o.hourly_max),
            _money(o.monthly_estimate),
            _money(o.monthly_envelope),
        ]
        for o in report.other
    ]


def _numeric(index: int, numeric_from: int, numeric_to: int | None) -> bool:
    return numeric_from <= index and (numeric_to is None or index < numeric_to)


def _table(
    header: list[str], rows: list[list[str]], numeric_from: int, numeric_to: int | None = None
) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [
            c.rjust(w) if _numeric(i, numeric_from, numeric_to) else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def _sources(report: CostReport) -> list[tuple[str, PriceUsed]]:
    seen: dict[str, PriceUsed] = {}
    for line in report.pools:
        seen.setdefault(line.on_demand.what, line.on_demand)
        seen.setdefault(line.spot.what, line.spot)
    for other in report.other:
        for price in other.prices or (other.price,):
            seen.setdefault(price.what, price)
    return list(seen.items())


def _price_source(price: PriceUsed) -> str:
    flag = "" if price.confirmed else ", UNCONFIRMED"
    return f"{price.label()} ({price.date}, {price.source}{flag})"


@dataclass(frozen=True)
class TableView:
    """A report table as cells already formatted: every renderer shows the same figures."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric_from: int  # columns from this index on are right-aligned figures


def pool_table(report: CostReport) -> TableView:
    return TableView(tuple(_POOL_HEADER), tuple(tuple(r) for r in _pool_rows(report)), 6)


def other_table(report: CostReport) -> TableView:
    return TableView(tuple(_OTHER_HEADER), tuple(tuple(r) for r in _other_rows(report)), 3)


def text_title(report: CostReport) -> str:
    return f"cost of stack {report.stack or '?'} (amounts in {report.currency}; basis: {report.basis})"


def render_text(report: CostReport) -> str:
    out = [text_title(report), ""]
    if report.pools:
        out.extend(_table(_POOL_HEADER, _pool_rows(report), 6))
    else:
        out.append("no GPU pools found")
    if report.other:
        out += ["", *(_table(_OTHER_HEADER, _other_rows(report), 3))]
    out += ["", *text_summary(report)]
    if report.owned is not None:
        out += ["", *render_owned(report.owned, report.monthly_estimate)]
    return "\n".join(out) + "\n"


def step_lines(line: PoolLine) -> list[str]:
    """A pool's month term by term, each checkable by hand: instances x hours at the cost an hour."""
    c = line.currency
    out = [
        f"{step.label}: {_num(step.size)} x {_num(step.hours)} h at {_num(step.hourly, 4)} {c}/h "
        f"= {_money(step.monthly)} {c}"
        for step in line.steps
    ]
    out.append(f"= {_num(line.instance_hours)} instance-h, {_money(line.monthly_estimate)} {c}")
    return out


def text_summary(report: CostReport) -> list[str]:
    """The lines of the text report below its tables: totals, budget, basis, prices, notes."""
    c = report.currency
    out = [
        f"total: hourly {_money(report.hourly_min)} at min, {_money(report.hourly_max)} at max "
        f"({_money(report.hourly_worst)} all on demand); "
        f"monthly estimate {_money(report.monthly_estimate)} {c}; "
        f"envelope {_money(report.monthly_envelope)} {c} (all at max, {_num(HOURS_PER_MONTH)} h)",
    ]
    status = budget_status(report)
    if status:
        out.append(status)
    out += [f"unpriced (left out of every total): {item}" for item in report.unpriced]
    out += [
        "",
        "how each pool's month was estimated (instances x hours a month at the pool's cost an hour "
        "at that size):",
    ]
    for line in report.pools:
        out.append(f"  {line.pool}: {line.basis}; schedule {line.schedule}")
        out += [f"    {text}" for text in step_lines(line)]
    out += ["", "prices used:"]
    out += [f"  {_price_source(price)}" for _, price in _sources(report)]
    for conversion in report.conversions:
        out.append(f"  {conversion.label()}")
    pool_notes = [f"{line.pool}: {note}" for line in report.pools for note in line.notes]
    other_notes = [f"{o.key}: {note}" for o in report.other for note in o.notes]
    notes = [*report.notes, *pool_notes, *other_notes]
    if notes:
        out += ["", "notes:", *(f"  - {n}" for n in notes)]
    return out


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(
    header: list[str], rows: list[list[str]], numeric_from: int, numeric_to: int | None = None
) -> list[str]:
    align = ["---:" if _numeric(i, numeric_from, numeric_to) else "---" for i in range(len(header))]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows),
    ]


def render_markdown(report: CostReport) -> str:
    c = report.currency
    out = [f"### Cost of `{report.stack or '?'}` ({c} per month unless marked /h)", ""]
    if report.pools:
        out.extend(_md_table(_POOL_HEADER, _pool_rows(report), 6))
    else:
        out.append("No GPU pools found.")
    if report.other:
        out += ["", *(_md_table(_OTHER_HEADER, _other_rows(report), 3))]
    out += [
        "",
        f"**Total:** {_money(report.hourly_min)}-{_money(report.hourly_max)} {c}/h; "
        f"**monthly estimate {_money(report.monthly_estimate)} {c}**; envelope "
        f"{_money(report.monthly_envelope)} {c} (all at max, {_num(HOURS_PER_MONTH)} h).",
    ]
    status = budget_status(report)
    if status:
        out += ["", f"**Budget:** {status}"]
    if report.unpriced:
        out += ["", "**Unpriced** (left out of every total):", *(f"- {item}" for item in report.unpriced)]
    if report.owned is not None:
        out += ["", "**Owned capacity** (beside the totals, not in them):"]
        out += [f"- {text}" for text in render_owned(report.owned, report.monthly_estimate)]
    out += ["", "<details><summary>How it was priced</summary>", ""]
    for line in report.pools:
        out.append(f"- `{line.pool}`: {line.basis}; schedule {line.schedule}")
        out += [f"  - {text}" for text in step_lines(line)]
    out += [f"- {_price_source(price)}" for _, price in _sources(report)]
    out += [f"- {conversion.label()}" for conversion in report.conversions]
    out += [f"- {n}" for n in report.notes]
    out += [f"- `{line.pool}`: {note}" for line in report.pools for note in line.notes]
    out += ["", "</details>"]
    return "\n".join(out) + "\n"


def _diff_rows(result: CostDiff) -> list[list[str]]:
    return [
        [
            row.key,
            row.change,
            "-" if row.base_monthly is None else _money(row.base_monthly),
            "-" if row.head_monthly is None else _money(row.head_monthly),
            _signed(row.delta),
            row.detail,
        ]
        for row in result.changed
    ]


_DIFF_HEADER = ["line", "change", "base/mo", "head/mo", "delta/mo", "what changed"]
_DIFF_DETAIL = _DIFF_HEADER.index("what changed")  # prose after the figures, left-aligned


def render_diff_text(result: CostDiff) -> str:
    c = result.currency
    out = [f"cost change of stack {result.stack or '?'} ({c} per month)", ""]
    rows = _diff_rows(result)
    if rows:
        out.extend(_table(_DIFF_HEADER, rows, 2, _DIFF_DETAIL))
    else:
        out.append("no line changes")
    out += [
        "",
        f"monthly estimate {_money(result.base_total)} -> {_money(result.head_total)} {c} "
        f"({_signed(result.delta)} {c}/month); envelope {_money(result.base_envelope)} -> "
        f"{_money(result.head_envelope)} {c}",
    ]
    return "\n".join(out) + "\n"


def render_diff_markdown(result: CostDiff) -> str:
    c = result.currency
    out = [
        f"### Cost change of `{result.stack or '?'}`: {_signed(result.delta)} {c}/month",
        "",
    ]
    rows = _diff_rows(result)
    if rows:
        out.extend(_md_table(_DIFF_HEADER, rows, 2, _DIFF_DETAIL))
    else:
        out.append("No line changes.")
    out += [
        "",
        f"Monthly estimate {_money(result.base_total)} -> {_money(result.head_total)} {c}; envelope "
        f"{_money(result.base_envelope)} -> {_money(result.head_envelope)} {c}.",
    ]
    return "\n".join(out) + "\n"
