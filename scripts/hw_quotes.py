"""Sentences of manual pages that quote the H100 SXM5 boards' files.

scripts/docs-blocks.py writes the block `hw-quote-NAME` from QUOTES[NAME], a
template of scripts/hw_board_table.py's fields (a value of the boards' files
with its aggregate, the runs that recorded it, a preset value with its key), so
that a board's number in prose is no more typed by hand than one of
docs/hardware.md's table (issue 80 item 4). A sentence that quotes the boards
goes here whole, and the page keeps only its block.
"""
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


def quote(root, name):
    if name not in QUOTES:
        raise hw.BoardError(f"no hw-quote '{name}' in scripts/hw_quotes.py")
    return hw._fill(hw._series(root), QUOTES[name], root)
