// The same kernel bodies the SIMT executor runs on the CPU, compiled as
// CUDA (gpuvm/simt.h maps the accessors to plain CUDA under __CUDACC__).
// Build check only: scripts/check-cuda.sh.
#include "../src/workloads/suite/fwt_kernels.h"
