"""Sentences of manual pages that quote the H100 SXM5 boards' files.

scripts/docs-blocks.py writes the block `hw-quote-NAME` from QUOTES[NAME], a
template of scripts/hw_board_table.py's fields (a value of the boards' files
with its aggregate, the runs that recorded it, a preset value with its key), so
that a board's number in prose is no more typed by hand than one of
docs/hardware.md's table (issue 80 item 4). A sentence that quotes the boards
goes here whole, and the page keeps only its block. A sentence whose numbers
need more than fields (a row of one section against a row of another) is a
function of FUNCTIONS.
"""
import statistics

import hw_board_table as hw

QUOTES = {
    # docs/timing.md, "The store direction"
    "store-rates": (
        "One SM's 16-byte stores reach the L2 at {mean l2 l2_write_gb_s_1cta 1} GB/s alone "
        "({runs l2 l2_write_gb_s_1cta 1}), every SM's at {mean l2 l2_write_gb_s_1cta_per_sm 132 .0f} GB/s "
        "({runs l2 l2_write_gb_s_1cta_per_sm 132}), "
        "{expr: [mean l2 l2_write_gb_s_1cta_per_sm 132] / [mean l2 l2_read_gb_s_1cta_per_sm 132] ; .2f} of "
        "the loads' rate ({mean l2 l2_read_gb_s_1cta_per_sm 132 .0f} GB/s); the preset's "
        "{preset l2.sm_port_write_bytes_per_cycle} and {preset l2.slice_write_bytes_per_cycle} are these "
        "rates in bytes a cycle (presets/h100.ini gives the arithmetic)."),
    # docs/launch.md, "Back-to-back launches"
    "launch-period": (
        "h100 takes the period from the 1-CTA, 128-thread row ("
        "{list launch empty_kernel_back_to_back_us_block128 1 .2f} us over "
        "{runs launch empty_kernel_back_to_back_us_block128 1}: their mean "
        "{mean launch empty_kernel_back_to_back_us_block128 1 .2f}, {preset gpu.kernel_launch_period_us} us)."),
    # docs/uvm.md, "Migration rate and fault latency on H100"
    "prefetch-rate": (
        "`cudaMemPrefetchAsync` of a {B@} block the host wrote takes "
        "{run4 mech prefetch_2mib_us 2097152} and {run6 mech prefetch_2mib_us 2097152} us "
        "(`run4`, `run6`; `mech` `prefetch_2mib_us`): "
        "{expr: 2097152 / (([run4 mech prefetch_2mib_us 2097152] + [run6 mech prefetch_2mib_us 2097152]) / 2) "
        "/ 1000} GB/s, the preset's {preset uvm.migration_gb_s}; the board's pinned copy moves "
        "{mean link h2d_pinned_gb_s 268435456 .0f} GB/s."),
    "fault-latency": (
        "`gpuvm calibrate`'s `far_fault_us` (a chase whose every step first touches another 2 MiB block, "
        "(T(32) - T(16)) / 16) measures {mean fault far_fault_us 0 .2f} us on the boards "
        "({runs fault far_fault_us 0}: {list fault far_fault_us 0}); h100 takes "
        "{preset uvm.fault_latency_us} us."),
}


def _launch_rows(series):
    """[(block, grid, back-to-back period us, ncu median us or None, event us or None)]:
    the launch section's rows (means over the runs) beside the ncu durations
    (median of every launch) of the same kernel."""
    out = []
    for (sec, qty, grid), rv in sorted(series.items()):
        if sec != "launch" or not qty.startswith("empty_kernel_back_to_back_us_block"):
            continue
        block = qty[len("empty_kernel_back_to_back_us_block"):]
        ev = hw.included(series.get(("launch", f"empty_kernel_event_us_block{block}", grid), []))
        ncu = series.get(("ncu", "calib_empty", f"{block}x{grid}"))
        out.append((block, grid, statistics.mean(v for _, v in hw.included(rv)),
                    statistics.median(v for _, v in ncu) / 1000 if ncu else None,
                    statistics.mean(v for _, v in ev) if ev else None))
    return out


def launch_pipelining(series):
    """docs/launch.md: the period against the kernel's duration, short and long kernels."""
    rows = [r for r in _launch_rows(series) if r[3] is not None]
    short = [r for r in rows if r[3] < r[2]]
    long_ = [r for r in rows if r[3] >= r[2]]
    if not short or not long_:
        raise hw.BoardError("launch-pipelining: want kernels both shorter and longer than the period")
    gap = [r[3] - r[2] for r in long_]
    return (f"The period is the host's ({min(r[2] for r in short):.2f}-{max(r[2] for r in short):.2f} us over "
            f"the {len(short)} kernels shorter than it, whatever their size) while the kernel is shorter, and the "
            f"kernel's own duration less {min(gap):.2f}-{max(gap):.2f} us when it is longer ({len(long_)} kernels; "
            "the period is the runs' mean of 200 back-to-back launches, the duration ncu's median of "
            "every launch): no launch overhead between them at all.")


def launch_event(series):
    """docs/launch.md: what one event-timed launch adds to the kernel's ncu duration."""
    rows = [r for r in _launch_rows(series) if r[3] is not None and r[4] is not None]
    if not rows:
        raise hw.BoardError("launch-event: no kernel has both an event-timed launch and an ncu duration")
    extra = [r[4] - r[3] for r in rows]
    return (f"One event-timed launch exposes {min(extra):.1f}-{max(extra):.1f} us beyond its ncu duration "
            f"({len(rows)} kernels; the event time is the runs' mean of each run's median of 15), the events' "
            "own commands in.")


FUNCTIONS = {"launch-pipelining": launch_pipelining, "launch-event": launch_event}


def quote(root, name):
    if name in FUNCTIONS:
        return FUNCTIONS[name](hw._series(root))
    if name not in QUOTES:
        raise hw.BoardError(f"no hw-quote '{name}' in scripts/hw_quotes.py")
    return hw._fill(hw._series(root), QUOTES[name], root)


NAMES = list(QUOTES) + list(FUNCTIONS)
