/* The compiled sampling loops: what ptxas -O3 makes of the Karnagel
 * sampling kernels (cuda/random_sampling.cu, cuda/scoped_sampling.cu) for
 * each architecture with a listing in cuda/sass/, counted so that the
 * random-sampling generator issues what the compiled kernel issues
 * (docs/scoping.md, "The compiled sampling loop").
 *
 * Every listing unrolls the read loop by 4, computes 4 positions and then
 * issues their 4 loads back to back (the scoped kernel predicates each,
 * @!P LDG), then runs a remainder loop of one read at a time for
 * reads % 4. The counts below come from
 *
 *   python3 scripts/sass_loop_counts.py cuda/sass/random_sampling_sm*.sass \
 *       cuda/sass/scoped_sampling_sm*.sass
 *
 * (the sass files as committed; run on branch h-samp, 2026-11-25):
 * insts = the loop's instructions less its LDGs (branches, DEPBAR/
 * TEXDEPBAR, ULDC/LDC and BSSY/BSYNC included: each takes an issue slot),
 * imuls = of them, those of the integer multiply pipe (sm_35 IMAD + IMUL +
 * IMUL32I; sm_70/80/90 IMAD; sm_60 none: its 96 XMADs are the full-rate
 * 16-bit multiply-adds a 32-bit multiply compiles to, so they already are
 * the 3-instruction cost gpu.imul32_issue_slots = 3 stands for), chain =
 * the script's "chain to a load address". */
#ifndef GPUVM_SAMPLING_LISTING_H
#define GPUVM_SAMPLING_LISTING_H

#include <stddef.h>
#include <stdint.h>

/* One loop of a listing. */
struct sampling_loop {
	uint32_t insts; /* warp instructions besides the loads */
	uint32_t imuls; /* of them, integer multiply-pipe instructions */
	uint32_t chain; /* dependence chain from the loop's entry to a load address */
};

struct sampling_listing {
	uint32_t sm; /* the listing's sm_NN: cuda/sass/{random,scoped}_sampling_smNN.sass */
	/* random_sampling_smNN.sass: the 4-read body (.L_x_2) and the
	 * one-read remainder loop (.L_x_3) */
	struct sampling_loop body4, rem1;
	/* scoped_sampling_smNN.sass: the same two loops with the scope test */
	struct sampling_loop scoped4, scoped1;
};

/* Reads per iteration of every listing's unrolled loop. */
#define SAMPLING_LISTING_UNROLL 4

static const struct sampling_listing sampling_listings[] = {
	/* .L_x_2: 87 instructions, 4 loads, chain 16; IADD 32 IMAD 12 IMUL 12
	 * IADD32I 5 IMUL32I 4 MOV32I 4 SHF 4 ISCADD 4 LDG 4 TEXDEPBAR 4 ISETP 1
	 * BRA 1. .L_x_3: 24, 1 load, chain 10; IMAD 3 IMUL 3 IMUL32I 1.
	 * scoped .L_x_2: 103, chain 24; IMAD 12 IMUL 12 IMUL32I 4. scoped
	 * .L_x_4: 30, chain 10; IMAD 3 IMUL 3 IMUL32I 1. */
	{35, {83, 28, 16}, {23, 7, 10},
	 {99, 28, 24}, {29, 7, 10}},
	/* .L_x_2: 176, chain 23; XMAD 96. .L_x_3: 47, chain 13; XMAD 24.
	 * scoped .L_x_2: 197, chain 28. scoped .L_x_4: 54, chain 13. */
	{60, {172, 0, 23}, {46, 0, 13},
	 {193, 0, 28}, {53, 0, 13}},
	/* .L_x_2: 55, chain 7; IMAD 29. .L_x_3: 17, chain 7; IMAD 8. scoped
	 * .L_x_2: 73, chain 19; IMAD 34. scoped .L_x_5: 26, chain 7; IMAD 9. */
	{70, {51, 29, 7}, {16, 8, 7},
	 {69, 34, 19}, {25, 9, 7}},
	/* .L_x_2: 55, chain 7; IMAD 29. .L_x_3: 17, chain 7; IMAD 8. scoped
	 * .L_x_2: 72, chain 19; IMAD 33. scoped .L_x_5: 25, chain 7; IMAD 10. */
	{80, {51, 29, 7}, {16, 8, 7},
	 {68, 33, 19}, {24, 10, 7}},
	/* .L_x_2: 64, chain 7; IMAD 32. .L_x_3: 22, chain 7; IMAD 8. scoped
	 * .L_x_2: 86, chain 20; IMAD 35. scoped .L_x_5: 31, chain 7; IMAD 10. */
	{90, {60, 32, 7}, {21, 8, 7},
	 {82, 35, 20}, {30, 10, 7}},
};

/* The listing that stands for gpu.compute_capability cc (x 10), or NULL.
 * A listing stands for its whole ISA family (the same major version):
 * cuda/sass/README.md found sm_37 identical to sm_35 and sm_61 to sm_60;
 * sm_30 (gtx680), which ptxas 11.8 no longer builds, gets sm_35's, the
 * nearest (presets/gtx680.ini says what differs). Families without a
 * listing (Fermi 2.x, Maxwell 5.x) and 0 (no real part) get NULL: the
 * workload keeps its estimate. */
static inline const struct sampling_listing *sampling_listing_for(uint32_t cc)
{
	for (size_t i = 0; i < sizeof sampling_listings / sizeof sampling_listings[0]; i++)
		if (cc / 10 == sampling_listings[i].sm / 10 && cc >= 10)
			return &sampling_listings[i];
	return NULL;
}

#endif
