// The SePo hash table's device code and map kernels (Mokhtari thesis ch. 6)
// as CUDA: the same bodies the SIMT executor runs on the CPU (gpuvm/simt.h
// maps the accessors to plain CUDA under __CUDACC__; SEPO_FENCE becomes
// __threadfence). Build check only: scripts/check-cuda.sh. A host driver
// for a real GPU would mirror src/bigdata/sepo.c and sepo_run.c with
// cudaMalloc/cudaMemcpy in place of simt_malloc/simt_download.
#include "../src/bigdata/sepo_kernels.h"
