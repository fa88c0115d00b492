// The S-L1 applications (src/workloads/sl1/sl1_kernels.h) and the S-L1
// accessor (include/gpuvm/sl1.h) compiled as CUDA: the same bodies the
// SIMT executor runs. Launch with dynamic shared memory of
// cln x 16 x blockDim bytes (sl1_cfg.cln; 0 with sl1_cfg.enabled = 0).
// Build check only: scripts/check-cuda.sh.
#include "../src/workloads/sl1/sl1_kernels.h"
