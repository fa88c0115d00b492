/* Probe backend on the host CPU: the same pointer chase in plain C over
 * 4 KiB pages, or 2 MiB pages where the kernel gives them (transparent huge
 * pages via MADV_HUGEPAGE, else hugetlbfs via MAP_HUGETLB). Timings are in
 * ns; each point is the median of several repetitions because the host's
 * cores are shared. No sharing benchmark: CPU TLBs are per core. */
#include "gpuvm/probe.h"
#include "gpuvm/number.h"

#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/splitmix.h"
#include "gpuvm/units.h"

#define HUGE_BYTES (2ull << 20)
#define PAGE_BYTES 4096ull
#define LINE_BYTES 64ull
/* Repetitions per point (median) and hops per repetition: with ~6 busy
 * processes on 2 cores, one repetition in five may be preempted. */
#define REPS 5
#define MIN_HOPS_PER_REP 60000
/* 4 KiB mode: every virtual page of the chase maps one of POOL_PAGES
 * physical pages (a memfd mapped again and again), so the data the chase
 * touches never outgrows POOL_PAGES x 64 lines = 256 KiB (a quarter of the
 * 1 MiB L2 data cache per core here, lscpu) however many pages it crosses:
 * past the L1 data cache every hop costs one L2 data-cache hit and the
 * only steps left are TLB steps. 64 pages also fit the 72-entry L1 dTLB. */
#define POOL_PAGES 64ull
/* Largest chase: 4x the 3072-entry L2 dTLB (CPUID 0x80000006) at 4 KiB, so
 * the curve reaches its plateau of all-miss walks. */
#define MAX_HOPS_4K 16384u
#define MAX_STRIDE_4K (16ull << 10)

struct cpu_probe {
	bool huge;
	unsigned char *buf;
	size_t bytes;
	uint64_t *order;   /* hop indices in chase order */
	void **chain;      /* scratch: hop addresses */
	uint32_t cap_hops;
	char page_mode[256];
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static long anon_huge_kib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	if (!f)
		return -1;
	char line[256];
	long v = -1;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "AnonHugePages:", 14))
			continue;
		const char *p = line + 14;
		while (*p == ' ' || *p == '\t')
			p++;
		int64_t kib;
		if (gpuvm_scan_i64(p, NULL, 0, INT64_MAX, &kib) == GPUVM_NUM_OK) {
			v = (long)kib;
			break;
		}
	}
	fclose(f);
	return v;
}

/* 4 KiB pages: reserve the virtual range, then map the POOL_PAGES memfd
 * over it chunk by chunk (MAP_FIXED, populated, so page faults stay out of
 * the timings). */
static int map_aliased(struct cpu_probe *cp, struct gpuvm_error *err)
{
	size_t chunk = POOL_PAGES * PAGE_BYTES;
	size_t bytes = (cp->bytes + chunk - 1) / chunk * chunk;
	cp->bytes = bytes;
	int fd = memfd_create("gpuvm-tlb-probe", 0);
	if (fd < 0)
		return gpuvm_fail(err, "cpu", 0, NULL, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)chunk)) {
		close(fd);
		return gpuvm_fail(err, "cpu", 0, NULL, "ftruncate memfd: %s", strerror(errno));
	}
	cp->buf = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (cp->buf == MAP_FAILED) {
		cp->buf = NULL;
		close(fd);
		return gpuvm_fail(err, "cpu", 0, NULL, "mmap %zu bytes: %s", bytes, strerror(errno));
	}
	for (size_t o = 0; o < bytes; o += chunk) {
		void *at = mmap(cp->buf + o, chunk, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0);
		if (at == MAP_FAILED) {
			close(fd);
			return gpuvm_fail(err, "cpu", 0, NULL, "mmap of the page pool: %s", strerror(errno));
		}
	}
	close(fd);
	snprintf(cp->page_mode, sizeof cp->page_mode,
		 "4 KiB pages, %zu MiB of virtual pages aliasing a %llu KiB physical pool", bytes >> 20,
		 POOL_PAGES * PAGE_BYTES / 1024);
	return 0;
}

/* Maps the chase buffer once, touched, so page faults stay out of the
 * timings. */
static int map_buffer(struct cpu_probe *cp, struct gpuvm_error *err)
{
	size_t bytes = cp->bytes;
	if (!cp->huge)
		return map_aliased(cp, err);
	/* THP: over-map to align to 2 MiB, advise, touch, and check that the
	 * kernel really backed the range with huge pages. (Huge pages cannot
	 * alias one pool here: shmem THP is off, and the huge zero page is
	 * read-only.) */
	long before = anon_huge_kib();
	size_t span = bytes + HUGE_BYTES;
	unsigned char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw != MAP_FAILED) {
		uintptr_t a = ((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
		if (a > (uintptr_t)raw)
			munmap(raw, a - (uintptr_t)raw);
		size_t tail = (size_t)((uintptr_t)raw + span - (a + bytes));
		if (tail)
			munmap((void *)(a + bytes), tail);
		cp->buf = (unsigned char *)a;
		int adv = madvise(cp->buf, bytes, MADV_HUGEPAGE);
		memset(cp->buf, 1, bytes);
		long after = anon_huge_kib();
		if (!adv && before >= 0 && after - before >= (long)(bytes / 1024) * 9 / 10) {
			snprintf(cp->page_mode, sizeof cp->page_mode,
				 "2 MiB pages: transparent huge pages (MADV_HUGEPAGE), %ld KiB of the %zu KiB "
				 "buffer huge", after - before, bytes / 1024);
			return 0;
		}
		munmap(cp->buf, bytes);
		cp->buf = NULL;
		snprintf(cp->page_mode, sizeof cp->page_mode,
			 "MADV_HUGEPAGE %s (%ld of %zu KiB huge); ", adv ? "refused" : "gave too few huge pages",
			 after - before, bytes / 1024);
	}
	size_t used = strlen(cp->page_mode);
	cp->buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (cp->buf == MAP_FAILED) {
		cp->buf = NULL;
		return gpuvm_fail(err, "cpu:huge", 0, NULL,
				  "%sMAP_HUGETLB failed too (%s; /proc/sys/vm/nr_hugepages may be 0): "
				  "no 2 MiB pages on this machine",
				  cp->page_mode, strerror(errno));
	}
	memset(cp->buf, 1, bytes);
	snprintf(cp->page_mode + used, sizeof cp->page_mode - used, "2 MiB pages via MAP_HUGETLB");
	return 0;
}

/* Byte offset of hop i inside its stride block. In 4 KiB mode, (virtual
 * page, line, word) is chosen so that no two hops of one chase share a
 * word of the pool and consecutive hops fall in different L1 sets:
 * the line cycles with the hop's block and shifts by one each time the
 * chase wraps round the pool's pages; past 64 wraps the word moves (a
 * line holds 8 pointers). Huge mode: the generic offset (a line per hop
 * within 4 KiB). */
static uint64_t hop_offset(const struct cpu_probe *cp, uint64_t i, uint64_t stride)
{
	if (cp->huge)
		return gpuvm_probe_chain_offset(i, stride);
	uint64_t span = stride < PAGE_BYTES ? stride : PAGE_BYTES;
	uint64_t lines = span / LINE_BYTES;
	if (!lines)
		return 0;
	uint64_t per_page = stride < PAGE_BYTES ? PAGE_BYTES / stride : 1;
	uint64_t pages_per_hop = stride > PAGE_BYTES ? stride / PAGE_BYTES : 1;
	uint64_t distinct_pages = POOL_PAGES > pages_per_hop ? POOL_PAGES / pages_per_hop : 1;
	uint64_t round = i / (distinct_pages * per_page);
	uint64_t line = (i / per_page + round) % lines;
	uint64_t word = (round / lines) % (LINE_BYTES / 8);
	return line * LINE_BYTES + word * 8;
}

/* Chase order: aligned pairs of hops (2j, 2j+1) stay together, the pairs
 * in a random order (fixed per stride and size, so repeated passes time
 * the same chain). The random order defeats the stride prefetchers, which
 * otherwise run ahead of a sequential chase, hide the data-cache misses
 * and walk pages early (a sequential chase here gets faster past the L1
 * data cache). The pairs keep Karnagel's X/2 pattern: at half the entry
 * size both hops of a pair share one entry and the second hits. */
static void chase_order(uint64_t *order, uint32_t hops, uint64_t stride)
{
	uint32_t pairs = (hops + 1) / 2;
	uint64_t seed = stride * 0x100000001b3ull ^ hops;
	for (uint32_t j = 0; j < pairs; j++)
		order[j] = j;
	for (uint32_t j = pairs; j > 1; j--) {
		uint32_t k = (uint32_t)(splitmix64_next(&seed) % j);
		uint64_t t = order[j - 1];
		order[j - 1] = order[k];
		order[k] = t;
	}
	/* Expand in place from the back: order[2j], order[2j+1] = pair j. */
	for (uint32_t j = pairs; j-- > 0;) {
		uint64_t p = order[j];
		order[2 * j] = 2 * p;
		if (2 * j + 1 < 2 * pairs)
			order[2 * j + 1] = 2 * p + 1;
	}
	if (hops % 2) {
		/* The odd hop count's last pair has one hop: drop index == hops. */
		uint32_t n = 0;
		for (uint32_t j = 0; j < 2 * pairs; j++)
			if (order[j] < hops)
				order[n++] = order[j];
	}
}

static int cpu_chase(struct gpuvm_probe_backend *b, uint64_t stride, uint32_t hops, double *latency,
		     struct gpuvm_error *err)
{
	struct cpu_probe *cp = b->impl;
	if ((uint64_t)hops * stride > cp->bytes || hops > cp->cap_hops || hops < 1)
		return gpuvm_fail(err, "cpu", 0, NULL, "chase of %u x %llu bytes exceeds the %zu-byte buffer",
				  hops, (unsigned long long)stride, cp->bytes);
	chase_order(cp->order, hops, stride);
	for (uint32_t j = 0; j < hops; j++) {
		uint64_t i = cp->order[j];
		cp->chain[j] = cp->buf + i * stride + hop_offset(cp, i, stride);
	}
	/* Pointer chain in chase order, the last pointing back to the first. */
	for (uint32_t j = 0; j < hops; j++)
		*(void **)cp->chain[j] = cp->chain[j + 1 == hops ? 0 : j + 1];
	uint64_t per_rep = hops;
	while (per_rep < MIN_HOPS_PER_REP)
		per_rep += hops;
	double t[REPS];
	void *volatile sink;
	void **p = (void **)cp->chain[0];
	for (uint32_t i = 0; i < hops; i++) /* warm-up pass */
		p = (void **)*p;
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();
		for (uint64_t i = 0; i < per_rep; i++)
			p = (void **)*p;
		t[r] = (now_ns() - t0) / (double)per_rep;
	}
	sink = p;
	(void)sink;
	qsort(t, REPS, sizeof t[0], cmp_double);
	*latency = t[REPS / 2];
	return 0;
}

static void cpu_destroy(struct gpuvm_probe_backend *b)
{
	struct cpu_probe *cp = b->impl;
	if (cp && cp->buf)
		munmap(cp->buf, cp->bytes);
	if (cp) {
		free(cp->order);
		free(cp->chain);
	}
	free(cp);
	b->impl = NULL;
}

static const struct gpuvm_probe_backend_ops cpu_ops = {
	.chase = cpu_chase,
	.destroy = cpu_destroy,
};

/* ---- CPUID ---------------------------------------------------------- */

static const char *amd_assoc4(unsigned code)
{
	/* Linux arch/x86/kernel/cpu/cacheinfo.c assocs[]; AMD APM CPUID Fn8000_0006. */
	static const char *const names[16] = {"off", "1-way", "2-way", "3-way", "4-way", "6-way",
					      "8-way", "?", "16-way", "?", "32-way", "48-way",
					      "64-way", "96-way", "128-way", "fully associative"};
	return names[code & 15];
}

static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	if (n >= len)
		return n;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return w > 0 ? n + (size_t)w : n;
}

void gpuvm_probe_cpuid_tlbs(char *buf, size_t len)
{
	unsigned a, b, c, d;
	size_t n = 0;
	buf[0] = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d)) {
		put(buf, len, n, "CPUID: not available");
		return;
	}
	unsigned max_leaf = a;
	char vendor[13];
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	unsigned max_ext = __get_cpuid_max(0x80000000, NULL);
	n = put(buf, len, n, "CPUID vendor %s", vendor);
	if (__get_cpuid(1, &a, &b, &c, &d)) {
		unsigned fam = (a >> 8) & 15, model = (a >> 4) & 15;
		if (fam == 15)
			fam += (a >> 20) & 0xff;
		if (fam >= 6)
			model |= ((a >> 16) & 15) << 4;
		n = put(buf, len, n, ", family 0x%x model 0x%x", fam, model);
	}
	n = put(buf, len, n, "\n");
	if (!strcmp(vendor, "AuthenticAMD") && max_ext >= 0x80000006) {
		__cpuid(0x80000005, a, b, c, d);
		n = put(buf, len, n,
			"CPUID 0x80000005 L1 dTLB: %u entries 4K (%s), %u entries 2M/4M (%s)\n",
			(b >> 16) & 0xff, ((b >> 24) & 0xff) == 0xff ? "fully associative" : "",
			(a >> 16) & 0xff, ((a >> 24) & 0xff) == 0xff ? "fully associative" : "");
		__cpuid(0x80000006, a, b, c, d);
		n = put(buf, len, n, "CPUID 0x80000006 L2 dTLB: %u entries 4K (%s), %u entries 2M/4M (%s)\n",
			(b >> 16) & 0xfff, amd_assoc4(b >> 28), (a >> 16) & 0xfff, amd_assoc4(a >> 28));
		if (max_ext >= 0x80000019) {
			__cpuid(0x80000019, a, b, c, d);
			n = put(buf, len, n, "CPUID 0x80000019 1G dTLB: L1 %u entries, L2 %u entries\n",
				(a >> 16) & 0xfff, (b >> 16) & 0xfff);
		}
	} else if (!strcmp(vendor, "GenuineIntel")) {
		if (max_leaf >= 0x18) {
			__cpuid_count(0x18, 0, a, b, c, d);
			unsigned subs = a;
			for (unsigned s = 0; s <= subs && s < 32; s++) {
				__cpuid_count(0x18, s, a, b, c, d);
				unsigned type = d & 31;
				if (!type)
					continue; /* null sub-leaf: skip, do not stop (Intel SDM CPUID leaf 18H, EDX[4:0] = 0) */
				static const char *const types[] = {"", "data", "instruction", "unified",
								    "load", "store"};
				n = put(buf, len, n,
					"CPUID 0x18.%u L%u %s TLB: %u entries (%u ways x %u sets)%s, pages%s%s%s%s\n",
					s, (d >> 5) & 7, type < 6 ? types[type] : "?", (b >> 16) * c, b >> 16, c,
					(d >> 8) & 1 ? " fully associative" : "", b & 1 ? " 4K" : "",
					b & 2 ? " 2M" : "", b & 4 ? " 4M" : "", b & 8 ? " 1G" : "");
			}
		}
		if (max_leaf >= 2) {
			__cpuid(2, a, b, c, d);
			unsigned regs[4] = {a, b, c, d};
			n = put(buf, len, n, "CPUID 0x2 descriptor bytes:");
			for (int r = 0; r < 4; r++) {
				if (regs[r] >> 31)
					continue;
				for (int k = r == 0 ? 1 : 0; k < 4; k++) {
					unsigned byte = (regs[r] >> (8 * k)) & 0xff;
					if (byte)
						n = put(buf, len, n, " 0x%02x", byte);
				}
			}
			n = put(buf, len, n, " (0xfe: TLBs in leaf 0x18)\n");
		}
	} else {
		n = put(buf, len, n, "CPUID: no TLB leaves known for this vendor\n");
	}
	(void)n;
}

int gpuvm_probe_backend_cpu(struct gpuvm_probe_backend *b, bool huge, struct gpuvm_error *err)
{
	memset(b, 0, sizeof *b);
	struct cpu_probe *cp = calloc(1, sizeof *cp);
	if (!cp)
		return gpuvm_fail(err, "cpu", 0, NULL, "out of memory");
	cp->huge = huge;
	/* 4 KiB: 16 KiB x 16384 hops of virtual pages over the 256 KiB pool.
	 * 2 MiB: 1 GiB of real huge pages (they cannot alias a pool here);
	 * 4 KiB strides over it reach the second level's knee, 2 MiB strides
	 * the first level's 2X. */
	cp->bytes = huge ? (1ull << 30) : MAX_STRIDE_4K * MAX_HOPS_4K;
	b->ops = &cpu_ops;
	b->impl = cp;
	if (map_buffer(cp, err)) {
		gpuvm_probe_backend_free(b);
		return -1;
	}
	cp->cap_hops = huge ? 65536 : MAX_HOPS_4K;
	cp->order = malloc(((size_t)cp->cap_hops + 2) * sizeof *cp->order);
	cp->chain = malloc(((size_t)cp->cap_hops + 1) * sizeof *cp->chain);
	if (!cp->order || !cp->chain) {
		gpuvm_probe_backend_free(b);
		return gpuvm_fail(err, "cpu", 0, NULL, "out of memory");
	}
	/* Stay on one core: a migration mid-chase would time another TLB. */
	int cpu = sched_getcpu();
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof set, &set);
	}
	snprintf(b->target, sizeof b->target, "cpu:%s", huge ? "2MiB" : "4KiB");
	snprintf(b->unit, sizeof b->unit, "ns");
	b->max_bytes = cp->bytes;
	b->max_hops = cp->cap_hops;
	/* Strides: X/2 of the 4 KiB page up to 4X of it (4 KiB mode), or up
	 * to 2X of the 2 MiB page (huge mode: the 4 KiB strides are there
	 * because this guest's huge pages may be split into 4 KiB TLB entries). */
	b->min_stride_bytes = 2048;
	b->max_stride_bytes = huge ? (4u << 20) : MAX_STRIDE_4K;
	/* An x86 TLB entry maps at least one 4 KiB page: smaller strides are
	 * the X/2 of the smallest possible entry, never an entry size. */
	b->min_entry_bytes = PAGE_BYTES;
	/* 4 KiB mode: the pool bounds the data (no cap). Huge mode: half the
	 * L2 data cache's lines (1 MiB per core on this host: lscpu). */
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), line = sysconf(_SC_LEVEL2_CACHE_LINESIZE);
	b->data_cache_lines = huge && l2 > 0 && line > 0 ? (uint64_t)(l2 / line) : 0;
	b->deterministic = false;
	/* Three passes over the whole grid, minutes apart at most: another
	 * VM's thread on this core's sibling shares the TLBs for seconds at a
	 * time, so back-to-back repetitions are disturbed together; a pass
	 * later usually is not. Interference only adds latency, so the
	 * analysis takes each point's lowest pass. */
	b->passes = 3;
	/* Noise floor from repeated short chases: 4 x the spread of medians,
	 * and 8 % of the latency (the pass-to-pass spread seen past the L2
	 * dTLB here, where a walk costs ~30 ns). */
	double v[9];
	for (int i = 0; i < 9; i++)
		cpu_chase(b, 4096, 8, &v[i], err);
	qsort(v, 9, sizeof v[0], cmp_double);
	double spread = v[6] - v[2];
	b->noise = fmax(0.3, 4 * spread);
	b->noise_rel = 0.08;
	char cpuid[1024];
	gpuvm_probe_cpuid_tlbs(cpuid, sizeof cpuid);
	snprintf(b->notes, sizeof b->notes,
		 "%s; chase in random order of hop pairs, lowest of %u passes (median of %d repetitions "
		 "each); noise floor %.2f ns + %.0f %%; %s",
		 cp->page_mode, b->passes, REPS, b->noise, 100 * b->noise_rel, cpuid);
	return 0;
}
