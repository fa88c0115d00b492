/* Rodinia backprop (backprop/backprop_cuda_kernel.cu): one training step
 * of a fully connected in x 16 x 1 network. bpnn_layerforward_CUDA
 * multiplies 16 inputs by their 16 x 16 weights in shared memory and
 * sums each column with a tree reduction (one barrier per level),
 * writing the partial sums of every level back over the weights (as
 * Rodinia does) and the column sums to hidden_partial_sum.
 * bpnn_adjust_weights_cuda applies the hidden deltas with momentum.
 * Grids are (1, in / 16) of 16 x 16 threads; weights are (in+1) x 17,
 * row 0 the bias. Rodinia's __log2f(HEIGHT) / __powf(2, i) are the
 * integer constants 4 and 1 << i here. */
#include "gpuvm/simt.h"

#define BP_WIDTH 16  /* shared memory width: hidden units */
#define BP_HEIGHT 16 /* shared memory height: inputs per block */
#define BP_LOG2_HEIGHT 4
#define BP_ETA 0.3      /* eta value */
#define BP_MOMENTUM 0.3 /* momentum value */

struct bp_forward_args {
	const float *input_cuda;
	float *input_hidden_cuda, *hidden_partial_sum;
	int in, hid;
};

/* input_node, weight_matrix */
#define BP_FORWARD_SHARED_BYTES ((uint32_t)sizeof(float) * (BP_HEIGHT + BP_HEIGHT * BP_WIDTH))

SIMT_KERNEL_ANY_ORDER(bpnn_layerforward_CUDA, struct bp_forward_args, p)
{
	int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int index = (p.hid + 1) * BP_HEIGHT * by + (p.hid + 1) * ty + tx + 1 + (p.hid + 1);
	int index_in = BP_HEIGHT * by + ty + 1;
	SHARED(float, input_node, BP_HEIGHT);
	SHARED(float, weight_matrix, BP_HEIGHT * BP_WIDTH);
	int me = ty * BP_WIDTH + tx;
	if (tx == 0)
		input_node[ty] = LD(p.input_cuda, index_in);
	SYNCTHREADS();
	weight_matrix[me] = LD(p.input_hidden_cuda, index);
	SYNCTHREADS();
	weight_matrix[me] = weight_matrix[me] * input_node[ty];
	COMPUTE(2);
	SYNCTHREADS();
	for (int i = 1; i <= BP_LOG2_HEIGHT; i++) {
		int power_two = 1 << i;
		if (ty % power_two == 0)
			weight_matrix[me] = weight_matrix[me] + weight_matrix[me + power_two / 2 * BP_WIDTH];
		COMPUTE(4);
		SYNCTHREADS();
	}
	ST(p.input_hidden_cuda, index, weight_matrix[me]);
	SYNCTHREADS();
	if (tx == 0)
		ST(p.hidden_partial_sum, by * p.hid + ty, weight_matrix[tx * BP_WIDTH + ty]);
}

struct bp_adjust_args {
	const float *delta; /* hidden deltas, 1..hid */
	const float *ly;    /* input units, 1..in */
	float *w, *oldw;    /* (in+1) x (hid+1) weights and last changes */
	int hid, in;
};

SIMT_KERNEL_ANY_ORDER(bpnn_adjust_weights_cuda, struct bp_adjust_args, p)
{
	int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int index = (p.hid + 1) * BP_HEIGHT * by + (p.hid + 1) * ty + tx + 1 + (p.hid + 1);
	int index_y = BP_HEIGHT * by + ty + 1;
	int index_x = tx + 1;
	float d = LD(p.delta, index_x);
	float y = LD(p.ly, index_y);
	float old = LD(p.oldw, index);
	float w = LD(p.w, index);
	COMPUTE(6);
	ST(p.w, index, (float)(w + ((BP_ETA * d * y) + (BP_MOMENTUM * old))));
	ST(p.oldw, index, (float)((BP_ETA * d * y) + (BP_MOMENTUM * old)));
	SYNCTHREADS();
	if (ty == 0 && by == 0) { /* the bias row */
		float d0 = LD(p.delta, index_x);
		float old0 = LD(p.oldw, index_x);
		float w0 = LD(p.w, index_x);
		COMPUTE(4);
		ST(p.w, index_x, (float)(w0 + ((BP_ETA * d0) + (BP_MOMENTUM * old0))));
		ST(p.oldw, index_x, (float)((BP_ETA * d0) + (BP_MOMENTUM * old0)));
	}
}
