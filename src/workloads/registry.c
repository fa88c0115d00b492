/* The workload registry: adding a workload means one line here and its
 * own file; the engine never names a workload. */
#include "gpuvm/workload.h"

extern const struct gpuvm_workload_def gpuvm_workload_random_sampling;
extern const struct gpuvm_workload_def gpuvm_workload_hash_groupby;
extern const struct gpuvm_workload_def gpuvm_workload_stream_triad;
extern const struct gpuvm_workload_def gpuvm_workload_stream_triad_simt;
extern const struct gpuvm_workload_def gpuvm_workload_cpu_gpu_phases;
extern const struct gpuvm_workload_def gpuvm_workload_triad_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_shared_read_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_pingpong_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_jacobi_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_pagerank_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_allgather_mgpu;
extern const struct gpuvm_workload_def gpuvm_workload_conv2d;
extern const struct gpuvm_workload_def gpuvm_workload_conv3d;
extern const struct gpuvm_workload_def gpuvm_workload_fwt;
extern const struct gpuvm_workload_def gpuvm_workload_vectoradd;
extern const struct gpuvm_workload_def gpuvm_workload_scalarprod;
extern const struct gpuvm_workload_def gpuvm_workload_atax;
extern const struct gpuvm_workload_def gpuvm_workload_bicg;
extern const struct gpuvm_workload_def gpuvm_workload_gesummv;
extern const struct gpuvm_workload_def gpuvm_workload_mvt;
extern const struct gpuvm_workload_def gpuvm_workload_gemm;
extern const struct gpuvm_workload_def gpuvm_workload_mm2;
extern const struct gpuvm_workload_def gpuvm_workload_mm3;
extern const struct gpuvm_workload_def gpuvm_workload_syrk;
extern const struct gpuvm_workload_def gpuvm_workload_fdtd2d;
extern const struct gpuvm_workload_def gpuvm_workload_stencil;
extern const struct gpuvm_workload_def gpuvm_workload_ra;
extern const struct gpuvm_workload_def gpuvm_workload_ubench;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_chase;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_ops;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_stream;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_empty;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_atomic;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_link;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_l2;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_loaded;
extern const struct gpuvm_workload_def gpuvm_workload_ubench_warpload;
extern const struct gpuvm_workload_def gpuvm_workload_bfs;
extern const struct gpuvm_workload_def gpuvm_workload_pathfinder;
extern const struct gpuvm_workload_def gpuvm_workload_hotspot;
extern const struct gpuvm_workload_def gpuvm_workload_srad;
extern const struct gpuvm_workload_def gpuvm_workload_backprop;
extern const struct gpuvm_workload_def gpuvm_workload_nw;
extern const struct gpuvm_workload_def gpuvm_workload_lud;
extern const struct gpuvm_workload_def gpuvm_workload_adi;
extern const struct gpuvm_workload_def gpuvm_workload_sssp;
extern const struct gpuvm_workload_def gpuvm_workload_pagerank;
extern const struct gpuvm_workload_def gpuvm_workload_mis;
extern const struct gpuvm_workload_def gpuvm_workload_color;
extern const struct gpuvm_workload_def gpuvm_workload_bc;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_pvc;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_wc;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_kv;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_ii;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_netflix;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_dna;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_patent;
extern const struct gpuvm_workload_def gpuvm_workload_sepo_geo;
extern const struct gpuvm_workload_def gpuvm_workload_sl1;
extern const struct gpuvm_workload_def gpuvm_workload_bigkernel;

const struct gpuvm_workload_def *const gpuvm_workloads[] = {
	&gpuvm_workload_random_sampling,
	&gpuvm_workload_hash_groupby,
	&gpuvm_workload_stream_triad,
	&gpuvm_workload_stream_triad_simt,
	&gpuvm_workload_cpu_gpu_phases,
	&gpuvm_workload_triad_mgpu,
	&gpuvm_workload_shared_read_mgpu,
	&gpuvm_workload_pingpong_mgpu,
	&gpuvm_workload_jacobi_mgpu,
	&gpuvm_workload_allgather_mgpu,
	&gpuvm_workload_pagerank_mgpu,
	&gpuvm_workload_conv2d,
	&gpuvm_workload_conv3d,
	&gpuvm_workload_vectoradd,
	&gpuvm_workload_scalarprod,
	&gpuvm_workload_fwt,
	&gpuvm_workload_atax,
	&gpuvm_workload_bicg,
	&gpuvm_workload_gesummv,
	&gpuvm_workload_mvt,
	&gpuvm_workload_gemm,
	&gpuvm_workload_mm2,
	&gpuvm_workload_mm3,
	&gpuvm_workload_syrk,
	&gpuvm_workload_fdtd2d,
	&gpuvm_workload_stencil,
	&gpuvm_workload_ra,
	&gpuvm_workload_ubench,
	&gpuvm_workload_ubench_chase,
	&gpuvm_workload_ubench_ops,
	&gpuvm_workload_ubench_stream,
	&gpuvm_workload_ubench_empty,
	&gpuvm_workload_ubench_atomic,
	&gpuvm_workload_ubench_link,
	&gpuvm_workload_ubench_l2,
	&gpuvm_workload_ubench_loaded,
	&gpuvm_workload_ubench_warpload,
	&gpuvm_workload_bfs,
	&gpuvm_workload_pathfinder,
	&gpuvm_workload_hotspot,
	&gpuvm_workload_srad,
	&gpuvm_workload_backprop,
	&gpuvm_workload_nw,
	&gpuvm_workload_lud,
	&gpuvm_workload_adi,
	&gpuvm_workload_sssp,
	&gpuvm_workload_pagerank,
	&gpuvm_workload_mis,
	&gpuvm_workload_color,
	&gpuvm_workload_bc,
	&gpuvm_workload_sepo_pvc,
	&gpuvm_workload_sepo_wc,
	&gpuvm_workload_sepo_kv,
	&gpuvm_workload_sepo_ii,
	&gpuvm_workload_sepo_netflix,
	&gpuvm_workload_sepo_dna,
	&gpuvm_workload_sepo_patent,
	&gpuvm_workload_sepo_geo,
	&gpuvm_workload_sl1,
	&gpuvm_workload_bigkernel,
};
const size_t gpuvm_workloads_count = sizeof gpuvm_workloads / sizeof gpuvm_workloads[0];
