/* Graph colouring as Pannotia ran it (pannotia/pannotia graph_app/color/
 * kernel/kernel_maxmin.cl: color, color2; coloring_maxmin.cpp), the COLOR
 * of the NeiDty seed (its traces: color_maxmin): each round, an uncoloured
 * vertex whose random value is above every uncoloured neighbour's takes
 * colour c, one below all of them takes c + 1; c advances by 2 until a
 * round finds no uncoloured neighbours. Deviation: the OpenCL skips the
 * neighbour test of degree-1 vertices (`start != end - 1`), which can give
 * a leaf its neighbour's colour; here every vertex tests its neighbours,
 * so the result is a proper colouring (checked). */
#include "gpuvm/simt.h"

#define COLOR_BIG_NUM 999999.0f

struct color_args {
	const int *row, *col;
	const float *value;
	int *color;
	int *stop;
	float *max_d, *min_d;
	int c, n;
};

SIMT_KERNEL_ANY_ORDER(color1, struct color_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.color, tid) == -1) {
		int start = LD(p.row, tid);
		int end = LD(p.row, tid + 1);
		float mx = -1.0f, mn = COLOR_BIG_NUM;
		for (int e = start; e < end; e++) {
			int nb = LD(p.col, e);
			COMPUTE(2);
			if (LD(p.color, nb) == -1) {
				ST_SAME(p.stop, 0, 1);
				float v = LD(p.value, nb);
				COMPUTE(2);
				if (v > mx)
					mx = v;
				if (v < mn)
					mn = v;
			}
		}
		ST(p.max_d, tid, mx);
		ST(p.min_d, tid, mn);
	}
}

SIMT_KERNEL_ANY_ORDER(color2, struct color_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.color, tid) == -1) {
		float v = LD(p.value, tid);
		if (v > LD(p.max_d, tid))
			ST(p.color, tid, p.c);
		if (v < LD(p.min_d, tid))
			ST(p.color, tid, p.c + 1);
	}
}
