/* Peer access (cudaDeviceEnablePeerAccess, src/system/peer_access.h) on
 * small host programs: a kernel on GPU 1 reading GPU 0's device memory
 * after simt_enable_peer_access takes the NVLink route (peer bytes, no far
 * fault, no migration, its own walker) and lands between reading its own
 * memory and a copy staged through the host; without the enable the run
 * stops naming the allocation; a pair no NVLink joins is refused; a
 * remote store lands in the peer's memory; two GPUs reading one GPU's
 * memory share its NVSwitch port; and shared-read-mgpu mode=peer verifies.
 * And zero-copy (host-pinned) memory read by two GPUs, each over its own
 * host link. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/simt.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/workload.h"
#include "system_run.h"

#define SYS_HEAD "[system]\nname = t\ndescription = test\nsource = test\n" \
		 "[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"
#define GPU(i) "[gpu." #i "]\npreset = h100\n"
#define PCIE(l, i) "[link." #l "]\nkind = pcie\nendpoints = gpu." #i " cpu.0\nbandwidth_gb_s = 64\n"

/* two h100 joined by 2 x 100 GB/s NVLink per direction */
static const char two_nvlink[] = SYS_HEAD GPU(0) GPU(1) PCIE(0, 0) PCIE(1, 1)
	"[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\nbandwidth_gb_s = 100\ncount = 2\n";
/* the same without the NVLink: peer copies are staged through the host */
static const char two_pcie[] = SYS_HEAD GPU(0) GPU(1) PCIE(0, 0) PCIE(1, 1);
/* three h100 on an NVSwitch, 200 GB/s per GPU and direction */
static const char three_switch[] = SYS_HEAD GPU(0) GPU(1) GPU(2) PCIE(0, 0) PCIE(1, 1) PCIE(2, 2)
	"[link.3]\nkind = nvswitch\nendpoints = gpu.0 gpu.1 gpu.2\nbandwidth_gb_s = 100\n"
	"count = 2\n";

#define N (1u << 20) /* floats: 4 MiB */

struct rw_args {
	const float *src;
	float *dst;
	unsigned n;
	float k;
};

/* dst[i] = k * src[i] */
SIMT_KERNEL_ANY_ORDER(scale_kernel, struct rw_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.dst, i, p.k * LD(p.src, i));
}

enum prog {
	LOCAL,      /* GPU 1 reads its own copy */
	PEER,       /* GPU 1 reads GPU 0's a0 by peer access */
	NO_ENABLE,  /* the same without simt_enable_peer_access */
	STAGED,     /* a0 copied to GPU 1 (through the host on two_pcie), read there */
	REMOTE_ST,  /* GPU 1 stores into GPU 0's a0; GPU 0 downloads it */
	TWO_READERS, /* GPUs 1 and 2 read GPU 0's a0 at once */
	ZC_ONE,      /* GPU 1 reads host-pinned z */
	ZC_TWO,      /* GPUs 0 and 1 read host-pinned z at once */
	LOCAL_WARP,  /* LOCAL, one warp of 32 floats: latency-bound */
	PEER_WARP,   /* PEER, the same warp */
	BACK_WARP    /* GPU 0 reads GPU 1's b1 by peer access, one warp */
};

static int verified; /* the program's own check of REMOTE_ST's data */

static int launch(struct simt_host *h, const float *src, float *dst, float k)
{
	struct rw_args a = {src, dst, N, k};
	return SIMT_LAUNCH(h, scale_kernel, simt_dim3(N / 256, 1, 1), simt_dim3(256, 1, 1), a);
}

static int launch_warp(struct simt_host *h, const float *src, float *dst)
{
	struct rw_args a = {src, dst, 32, 2.0f};
	return SIMT_LAUNCH(h, scale_kernel, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), a);
}

/* z pinned (made on GPU 0), read by GPU 1, and by GPU 0 too (ZC_TWO) */
static int zero_copy_program(struct simt_host *h, enum prog k)
{
	float *z = simt_malloc(h, "z", N * sizeof(float), GPUVM_ALLOC_HOST_PINNED);
	float *o0 = simt_malloc(h, "o0", N * sizeof(float), GPUVM_ALLOC_DEVICE);
	if (!z || !o0 || simt_set_device(h, 1))
		return -1;
	float *o1 = simt_malloc(h, "o1", N * sizeof(float), GPUVM_ALLOC_DEVICE);
	if (!o1 || launch(h, z, o1, 2.0f))
		return -1;
	if (k == ZC_TWO && (simt_set_device(h, 0) || launch(h, z, o0, 2.0f) || simt_device_sync(h)))
		return -1;
	return simt_set_device(h, 1) || simt_device_sync(h);
}

static int program(struct simt_host *h, void *user)
{
	enum prog k = *(enum prog *)user;
	if (k == ZC_ONE || k == ZC_TWO)
		return zero_copy_program(h, k);
	float *a0 = simt_malloc(h, "a0", N * sizeof(float), GPUVM_ALLOC_DEVICE);
	if (!a0)
		return -1;
	for (unsigned i = 0; i < N; i++)
		a0[i] = (float)(i & 255);
	if (simt_upload(h, a0, N * sizeof(float)) || simt_set_device(h, 1))
		return -1;
	float *b1 = simt_malloc(h, "b1", N * sizeof(float), GPUVM_ALLOC_DEVICE);
	float *o1 = simt_malloc(h, "o1", N * sizeof(float), GPUVM_ALLOC_DEVICE);
	if (!b1 || !o1)
		return -1;
	switch (k) {
	case LOCAL:
		return launch(h, b1, o1, 2.0f) || simt_device_sync(h);
	case PEER:
		return simt_enable_peer_access(h, 0) || launch(h, a0, o1, 2.0f) ||
		       simt_device_sync(h);
	case NO_ENABLE:
		return launch(h, a0, o1, 2.0f) || simt_device_sync(h);
	case STAGED:
		return simt_memcpy_peer(h, b1, a0, N * sizeof(float)) || launch(h, b1, o1, 2.0f) ||
		       simt_device_sync(h);
	case REMOTE_ST: {
		/* GPU 1 writes 3 x (its own o1) into GPU 0's a0 */
		for (unsigned i = 0; i < N; i++)
			b1[i] = (float)(i % 1000);
		if (simt_upload(h, b1, N * sizeof(float)) || simt_enable_peer_access(h, 0) ||
		    launch(h, b1, a0, 3.0f) || simt_device_sync(h))
			return -1;
		if (simt_set_device(h, 0) || simt_download(h, a0, N * sizeof(float)))
			return -1;
		verified = 1;
		for (unsigned i = 0; i < N; i++)
			if (a0[i] != 3.0f * (float)(i % 1000))
				verified = 0;
		return 0;
	}
	case TWO_READERS: {
		if (simt_set_device(h, 2))
			return -1;
		float *o2 = simt_malloc(h, "o2", N * sizeof(float), GPUVM_ALLOC_DEVICE);
		return !o2 || simt_enable_peer_access(h, 0) || simt_set_device(h, 1) ||
		       simt_enable_peer_access(h, 0) || launch(h, a0, o1, 2.0f) ||
		       simt_set_device(h, 2) || launch(h, a0, o2, 2.0f) || simt_device_sync(h) ||
		       simt_set_device(h, 1) || simt_device_sync(h);
	}
	case LOCAL_WARP:
		return launch_warp(h, b1, o1) || simt_device_sync(h);
	case PEER_WARP:
		return simt_enable_peer_access(h, 0) || launch_warp(h, a0, o1) ||
		       simt_device_sync(h);
	case BACK_WARP: {
		if (simt_set_device(h, 0))
			return -1;
		float *o0 = simt_malloc(h, "o0", 32 * sizeof(float), GPUVM_ALLOC_DEVICE);
		return !o0 || simt_enable_peer_access(h, 1) || launch_warp(h, b1, o0) ||
		       simt_device_sync(h);
	}
	case ZC_ONE:
	case ZC_TWO:
		break;
	}
	return -1;
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[3];
	struct gpuvm_stats stats[3];
	struct gpuvm_system_stats out;
};

static int run_prog(struct run *r, const char *sys, enum prog k, struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	static enum prog which;
	which = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("peer", program, &which, NULL, &src, err), 0);
	return system_run(&r->desc, r->cfg, r->stats, &r->out, 3, sys, "t.ini", NULL, &src, err);
}

static void release(struct run *r)
{
	for (uint32_t d = 0; d < r->desc.n_gpus; d++)
		gpuvm_stats_release(&r->stats[d]);
	free(r);
}

static struct run *new_run(void)
{
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	return r;
}

/* GPU 1's kernel span: from the end of the upload (GPU 0's) to its end */
static double gpu1_kernel_s(const struct run *r)
{
	return r->stats[1].kernel_cycles / (r->cfg[1].clock_mhz * 1e6);
}

/* One warp's load, nothing to overlap it with: the peer's sector is read
 * through the peer's L2 from its DRAM and then crosses the link, so it
 * can never come back sooner than a read of the GPU's own DRAM (without
 * the peer's memory latency, the route's fallback latency of
 * uvm.remote_latency_cycles made it do so: 4.09 against 4.31 us). */
static void test_peer_load_not_faster_than_local_dram(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *local = new_run(), *peer = new_run();
	assert_int_equal(run_prog(local, two_nvlink, LOCAL_WARP, &err), 0);
	assert_int_equal(run_prog(peer, two_nvlink, PEER_WARP, &err), 0);
	assert_true(peer->stats[1].peer.read_bytes > 0);
	double tl = gpu1_kernel_s(local), tp = gpu1_kernel_s(peer);
	if (!(tp > tl))
		fail_msg("one warp: local %g s, peer %g s", tl, tp);
	release(local);
	release(peer);
}

/* The request names the GPU whose memory it reads (the SM layer's peer
 * entry's owner, link/peer_port.h): GPU 0 reading GPU 1's memory waits
 * for GPU 1's L2 and DRAM latency, so an A100 as GPU 1 (170 + 252 cycles
 * at 1410 MHz: 299 ns) instead of an H100 (240 + 366.9 at 1980: 307 ns)
 * changes the warp's time by that difference. A request that named GPU 0,
 * or the reader, would wait for the reader's own latency in both systems
 * and take the same time. */
static void test_peer_load_waits_for_its_owner(void **state)
{
	(void)state;
	static const char h100_a100[] = SYS_HEAD GPU(0) "[gpu.1]\npreset = a100\n" PCIE(0, 0)
		PCIE(1, 1) "[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\n"
		"bandwidth_gb_s = 100\ncount = 2\n";
	struct gpuvm_error err = {{0}};
	struct run *hh = new_run(), *ha = new_run();
	assert_int_equal(run_prog(hh, two_nvlink, BACK_WARP, &err), 0);
	assert_int_equal(run_prog(ha, h100_a100, BACK_WARP, &err), 0);
	assert_true(hh->stats[0].peer.read_bytes > 0 && ha->stats[0].peer.read_bytes > 0);
	double t_hh = hh->stats[0].kernel_cycles / (hh->cfg[0].clock_mhz * 1e6);
	double t_ha = ha->stats[0].kernel_cycles / (ha->cfg[0].clock_mhz * 1e6);
	/* the owner's memory latency: (l2 hit + dram) cycles of its clock */
	double m_h = (hh->cfg[1].l2_hit_latency_cycles + hh->cfg[1].dram_latency_cycles) /
		     (hh->cfg[1].clock_mhz * 1e6);
	double m_a = (ha->cfg[1].l2_hit_latency_cycles + ha->cfg[1].dram_latency_cycles) /
		     (ha->cfg[1].clock_mhz * 1e6);
	double dm = m_a - m_h, dt = t_ha - t_hh;
	assert_true(fabs(dm) > 1e-9);
	if (!(fabs(dt - dm) < 0.25 * fabs(dm)))
		fail_msg("one warp reading GPU 1: %g s with an H100 there, %g s with an A100: "
			 "not their memory latencies' difference (%g s against %g s)", t_hh, t_ha,
			 m_h, m_a);
	release(hh);
	release(ha);
}

static void test_peer_read_takes_nvlink(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *local = new_run(), *peer = new_run(), *staged = new_run();
	assert_int_equal(run_prog(local, two_nvlink, LOCAL, &err), 0);
	assert_int_equal(run_prog(peer, two_nvlink, PEER, &err), 0);
	assert_int_equal(run_prog(staged, two_pcie, STAGED, &err), 0);
	const struct gpuvm_stats *p1 = &peer->stats[1];
	if (p1->peer.read_bytes != (uint64_t)N * sizeof(float) || p1->peer.write_bytes != 0 ||
	    p1->peer.requests != (uint64_t)N * sizeof(float) / 32)
		fail_msg("peer bytes read %llu, written %llu, requests %llu",
			 (unsigned long long)p1->peer.read_bytes,
			 (unsigned long long)p1->peer.write_bytes,
			 (unsigned long long)p1->peer.requests);
	/* no fault, no migration: the data stays in GPU 0's memory */
	assert_int_equal(p1->uvm.far_faults, 0);
	assert_int_equal(peer->out.uvm_peer_pages, 0);
	assert_int_equal(peer->out.peer_copies, 0);
	/* GPU 1 translated a0 with its own walker (its page-table entries) */
	assert_true(p1->walks > 0);
	/* its own memory's stores only: a0's reads left its DRAM alone */
	assert_true(p1->dram_bytes < local->stats[1].dram_bytes);
	double tl = local->out.sim_seconds, tp = peer->out.sim_seconds, ts = staged->out.sim_seconds;
	if (!(tl < tp && tp < ts))
		fail_msg("local %g s, peer %g s, staged %g s: peer not between", tl, tp, ts);
	/* 4 MiB at 200 GB/s is 21 us: the kernel reading over NVLink is
	 * bound by the route's rate (the lanes), not by its latency */
	double k = gpu1_kernel_s(peer);
	if (!(k > 20e-6))
		fail_msg("the peer-reading kernel took %g s, under 4 MiB at 200 GB/s", k);
	release(local);
	release(peer);
	release(staged);
}

static void test_without_enable_refused(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = new_run();
	assert_int_not_equal(run_prog(r, two_nvlink, NO_ENABLE, &err), 0);
	if (!strstr(err.msg, "'a0' is device memory of GPU 0 and the kernel runs on GPU 1 without "
			     "peer access"))
		fail_msg("message: %s", err.msg);
	release(r);
}

static void test_no_nvlink_refused(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = new_run();
	assert_int_not_equal(run_prog(r, two_pcie, PEER, &err), 0);
	if (!strstr(err.msg, "no NVLink or NVSwitch joins GPUs 1 and 0"))
		fail_msg("message: %s", err.msg);
	release(r);
}

static void test_remote_store_lands(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = new_run();
	verified = 0;
	assert_int_equal(run_prog(r, two_nvlink, REMOTE_ST, &err), 0);
	assert_int_equal(verified, 1);
	assert_true(r->stats[1].peer.write_bytes == (uint64_t)N * sizeof(float));
	assert_true(r->stats[1].peer.read_bytes == 0);
	release(r);
}

static void test_readers_share_the_port(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *two = new_run();
	assert_int_equal(run_prog(two, three_switch, TWO_READERS, &err), 0);
	/* both read 4 MiB out of GPU 0's one egress port (200 GB/s): the
	 * second reader's kernel queues behind the first's sectors */
	double k1 = gpu1_kernel_s(two), k2 = two->stats[2].kernel_cycles /
					     (two->cfg[2].clock_mhz * 1e6);
	if (!(k2 > 1.6 * k1 || k1 > 1.6 * k2))
		fail_msg("two readers of one port: %g s and %g s, as if alone", k1, k2);
	release(two);
}

static void test_shared_read_mode_peer(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = new_run();
	memset(r, 0, sizeof *r);
	assert_int_equal(gpuvm_sysdesc_parse(&r->desc, three_switch, "t.ini", &err), 0);
	const struct gpuvm_config *cfgs[3];
	for (uint32_t d = 0; d < 3; d++) {
		assert_int_equal(gpuvm_sysdesc_gpu_config(&r->desc, d, &r->cfg[d], &err), 0);
		assert_int_equal(gpuvm_config_finalize(&r->cfg[d], &err), 0);
		cfgs[d] = &r->cfg[d];
	}
	const struct gpuvm_workload_def *def;
	struct gpuvm_params params;
	assert_int_equal(gpuvm_workload_parse("shared-read-mgpu:mode=peer,elems=65536,verify=1",
					      &def, &params, &err), 0);
	struct gpuvm_source src;
	r->cfg[0].system_gpus = 3; /* as gpuvm sim --system sets it */
	assert_int_equal(def->create(&r->cfg[0], &params, 1, &src, &err), 0);
	r->out.gpu = r->stats;
	struct gpuvm_sim_options opt = {0};
	if (gpuvm_simulate_system(&r->desc, cfgs, &src, &opt, &r->out, &err))
		fail_msg("%s", err.msg);
	src.ops->destroy(&src);
	if (!strstr(r->out.result, "gpus=3") || !strstr(r->out.result, "verify=pass"))
		fail_msg("result: %s", r->out.result);
	assert_int_equal(r->stats[0].peer.requests, 0);
	assert_true(r->stats[1].peer.read_bytes == 65536 * sizeof(float));
	assert_true(r->stats[2].peer.read_bytes == 65536 * sizeof(float));
	release(r);
}

static void test_zero_copy_from_two_gpus(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *one = new_run(), *two = new_run();
	assert_int_equal(run_prog(one, two_nvlink, ZC_ONE, &err), 0);
	assert_int_equal(run_prog(two, two_nvlink, ZC_TWO, &err), 0);
	/* each GPU read all of z over its own PCIe link */
	uint64_t z = (uint64_t)N * sizeof(float);
	if (two->stats[0].zero_copy_bytes != z || two->stats[1].zero_copy_bytes != z ||
	    one->stats[1].zero_copy_bytes != z)
		fail_msg("zero-copy bytes: GPU 0 %llu, GPU 1 %llu (alone %llu), not %llu",
			 (unsigned long long)two->stats[0].zero_copy_bytes,
			 (unsigned long long)two->stats[1].zero_copy_bytes,
			 (unsigned long long)one->stats[1].zero_copy_bytes, (unsigned long long)z);
	/* on links of their own the two readers overlap: 4 MiB at 64 GB/s
	 * is 66 us each, not 131 us together */
	double t1 = one->out.sim_seconds, t2 = two->out.sim_seconds;
	if (!(t1 > 60e-6 && t2 < 1.3 * t1))
		fail_msg("one reader %g s, two %g s: not on links of their own", t1, t2);
	release(one);
	release(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_read_takes_nvlink),
		cmocka_unit_test(test_peer_load_not_faster_than_local_dram),
		cmocka_unit_test(test_peer_load_waits_for_its_owner),
		cmocka_unit_test(test_without_enable_refused),
		cmocka_unit_test(test_no_nvlink_refused),
		cmocka_unit_test(test_remote_store_lands),
		cmocka_unit_test(test_readers_share_the_port),
		cmocka_unit_test(test_shared_read_mode_peer),
		cmocka_unit_test(test_zero_copy_from_two_gpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
