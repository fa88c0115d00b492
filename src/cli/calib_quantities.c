/* The quantities gpuvm calibrate measures (calib_quantities.h).
 *
 * One entry per name, in the order cmd_calibrate.c makes the rows. The
 * names it builds at run time (snprintf over a fixed list: TLB levels,
 * arithmetic classes, STREAM kernels and occupancies, warp-load sectors,
 * parallel-chase curves) are written out whole rather than as patterns:
 * each list is short, and a pattern would admit names no code makes
 * (tlb_l7_miss_delay_cycles). calib_add_row refuses any name missing
 * here, so a row added to cmd_calibrate.c without its entry fails the
 * first calibrate that makes it, and tests/cli/calibrate_quantities.sh
 * makes every preset's rows (quick and full) without running them. */
#include <stddef.h>
#include <string.h>

#include "cli/calib_quantities.h"
#include "gpuvm/suggest.h"

static const struct calib_quantity quantities[] = {
	/* chase_rows */
	{"chase_cycles", true},
	{"chase_l1_hit_cycles", false},
	{"chase_l2_hit_cycles", false},
	{"chase_l2_far_cycles", false},
	{"chase_dram_cycles", false},
	{"chase_dram_1gib_cycles", false},
	/* tlb_rows: levels 1 to 3 */
	{"tlb_l1_miss_delay_cycles", false},
	{"tlb_l2_miss_delay_cycles", false},
	{"tlb_l3_miss_delay_cycles", false},
	/* tlb_par_rows: its five curves */
	{"tlb_par_hops_per_kcycle_sm_fp256mib", true},
	{"tlb_par_hops_per_kcycle_sms_fp256mib", true},
	{"tlb_par_hops_per_kcycle_sm_fp8192mib", true},
	{"tlb_par_hops_per_kcycle_sms_fp8192mib", true},
	{"tlb_par_hops_per_kcycle_sm_lanes32_fp8192mib", true},
	/* ops_rows: fma, imad, dp, sfu */
	{"fma_latency_cycles", false},
	{"fma_ops_per_clk_sm", false},
	{"imad_latency_cycles", false},
	{"imad_ops_per_clk_sm", false},
	{"dp_latency_cycles", false},
	{"dp_ops_per_clk_sm", false},
	{"sfu_latency_cycles", false},
	{"sfu_ops_per_clk_sm", false},
	/* smem_atomic_rows */
	{"smem_latency_cycles", false},
	{"smem_2way_conflict_extra_cycles", false},
	{"atomic_latency_cycles", false},
	/* stream_rows: the kernels at full occupancy, then triad, init and
	 * read at 6 % and 25 % (and init and read at full) */
	{"stream_copy_gb_s", false},
	{"stream_triad_gb_s", false},
	{"stream_triad_fraction_of_peak", false},
	{"stream_triad_gb_s_occ6", false},
	{"stream_triad_gb_s_occ25", false},
	{"stream_init_gb_s_occ6", false},
	{"stream_init_gb_s_occ25", false},
	{"stream_init_gb_s", false},
	{"stream_read_gb_s_occ6", false},
	{"stream_read_gb_s_occ25", false},
	{"stream_read_gb_s", false},
	{"triad_gb_s", true},
	/* warp_load_rows: 1, 8, 16, 32 sectors; one warp, then one per SM */
	{"warp_load_cycles_s1", false},
	{"warp_load_cycles_s8", false},
	{"warp_load_cycles_s16", false},
	{"warp_load_cycles_s32", false},
	{"warp_load_cycles_s1_sms", false},
	{"warp_load_cycles_s8_sms", false},
	{"warp_load_cycles_s16_sms", false},
	{"warp_load_cycles_s32_sms", false},
	/* l2_rows, l2_port_row, dram_read_row */
	{"l2_read_bytes_per_clk", false},
	{"l2_read_gb_s_1cta", false},
	{"l2_read_gb_s_1cta_per_sm", false},
	{"l2_write_gb_s_1cta_per_sm", false},
	{"l2_write_gb_s_1cta", false},
	{"l2_write_gb_s_1cta_per_2sm", false},
	{"l2_write_gb_s_2cta_per_sm", false},
	{"l2_read_gb_s_1cta_per_2sm", false},
	{"dram_read_gb_s_1cta_per_sm", false},
	/* launch_link_rows */
	{"kernel_launch_cycles", false},
	{"empty_kernel_us_grid4096", false},
	{"empty_kernel_cycles_grid1", false},
	{"empty_kernel_period_us_grid1", false},
	{"empty_kernel_cycles_grid1024", false},
	{"empty_kernel_period_us_grid1024", false},
	{"empty_kernel_cycles_grid4096", false},
	{"empty_kernel_period_us_grid4096", false},
	{"empty_kernel_cycles_grid65536", false},
	{"empty_kernel_period_us_grid65536", false},
	{"empty_kernel_cycles_grid4096_block1024", false},
	{"empty_kernel_period_us_grid4096_block1024", false},
	{"empty_kernel_cycles_grid16384_block1024", false},
	{"empty_kernel_period_us_grid16384_block1024", false},
	{"h2d_gb_s", true},
	{"h2d_copy_4k_us", false},
	{"h2d_pinned_gb_s", false},
	{"far_fault_us", false},
	{"zero_copy_read_ns", false},
};
#define N_QUANTITIES (sizeof quantities / sizeof quantities[0])

const struct calib_quantity *calib_quantity_find(const char *name)
{
	for (size_t i = 0; i < N_QUANTITIES; i++)
		if (!strcmp(quantities[i].name, name))
			return &quantities[i];
	return NULL;
}

/* gpuvm_suggest's candidates: the compared quantities (a table row never
 * names a curve), as "" for a curve so that the index stays the entry's */
static const char *compared_at(size_t i, const void *ctx)
{
	(void)ctx;
	if (i >= N_QUANTITIES)
		return NULL;
	return quantities[i].curve ? "" : quantities[i].name;
}

const char *calib_quantity_near(const char *name)
{
	const char *near = gpuvm_suggest(name, compared_at, NULL);
	return near && *near ? near : NULL;
}
