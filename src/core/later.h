/* The later of two times, max(a, b), without a branch: which of two
 * completion times is later is often a coin toss in the model (the sector
 * that returns last, whether a fill is still pending), and the compiler
 * keeps a branch for the plain ternary. */
#ifndef GPUVM_LATER_H
#define GPUVM_LATER_H

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static inline double later(double a, double b)
{
#ifdef __SSE2__
	return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b)));
#else
	return a > b ? a : b;
#endif
}

#endif
