/* Probe backend on the host CPU: the same pointer chase in plain C over
 * 4 KiB pages, or 2 MiB pages where the kernel gives them (transparent huge
 * pages via MADV_HUGEPAGE, else hugetlbfs via MAP_HUGETLB). Timings are in
 * ns; each point is the median of several repetitions because the host's
 * cores are shared. No sharing benchmark: CPU TLBs are per core. */
#include "gpuvm/probe.h"

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

#include "gpuvm/units.h"

#define HUGE_BYTES (2ull << 20)
/* Repetitions per point (median) and hops per repetition: with ~6 busy
 * processes on 2 cores, one repetition in five may be preempted. */
#define REPS 7
#define MIN_HOPS_PER_REP 100000

struct cpu_probe {
	bool huge;
	unsigned char *buf;
	size_t bytes;
	char page_mode[160];
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
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Maps the chase buffer once, touched, so page faults stay out of the
 * timings. */
static int map_buffer(struct cpu_probe *cp, struct gpuvm_error *err)
{
	size_t bytes = cp->bytes;
	if (!cp->huge) {
		cp->buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (cp->buf == MAP_FAILED)
			return gpuvm_fail(err, "cpu", 0, NULL, "mmap %zu bytes: %s", bytes, strerror(errno));
		memset(cp->buf, 1, bytes);
		snprintf(cp->page_mode, sizeof cp->page_mode, "4 KiB pages");
		return 0;
	}
	/* THP: over-map to align to 2 MiB, advise, touch, and check that the
	 * kernel really backed the range with huge pages. */
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

static int cpu_chase(struct gpuvm_probe_backend *b, uint64_t stride, uint32_t hops, double *latency,
		     struct gpuvm_error *err)
{
	struct cpu_probe *cp = b->impl;
	if ((uint64_t)hops * stride > cp->bytes)
		return gpuvm_fail(err, "cpu", 0, NULL, "chase of %u x %llu bytes exceeds the %zu-byte buffer",
				  hops, (unsigned long long)stride, cp->bytes);
	/* Pointer chain over the hops, the last pointing back to the first. */
	for (uint32_t i = 0; i < hops; i++) {
		uint32_t n = i + 1 == hops ? 0 : i + 1;
		void **at = (void **)(cp->buf + (uint64_t)i * stride + gpuvm_probe_chain_offset(i, stride));
		*at = cp->buf + (uint64_t)n * stride + gpuvm_probe_chain_offset(n, stride);
	}
	uint64_t per_rep = hops;
	while (per_rep < MIN_HOPS_PER_REP)
		per_rep += hops;
	double t[REPS];
	void *volatile sink;
	void **p = (void **)(cp->buf + gpuvm_probe_chain_offset(0, stride));
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
	/* Linux arch/x86/kernel/cpu/cacheinfo.c assocs[] (tlb-anchors 4.3). */
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
					continue; /* null sub-leaf: skip, do not stop (tlb-anchors 4.2) */
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
	/* 4 KiB: 16 KiB x 12288 hops = 192 MiB covers a 3072-entry L2 TLB at 2X.
	 * 2 MiB: 1 GiB covers the L1 dTLB (tens of entries) at 2X; a
	 * thousands-entry L2 TLB would need several GiB of huge pages. */
	cp->bytes = huge ? (1ull << 30) : (192ull << 20);
	b->ops = &cpu_ops;
	b->impl = cp;
	if (map_buffer(cp, err)) {
		gpuvm_probe_backend_free(b);
		return -1;
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
	b->min_stride_bytes = huge ? (512u << 10) : 1024;
	b->max_stride_bytes = huge ? (8u << 20) : (16u << 10);
	/* Data: the chase touches one line per hop; half the L2 data cache's
	 * lines keeps it there (1 MiB per core on this host: lscpu). */
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), line = sysconf(_SC_LEVEL2_CACHE_LINESIZE);
	b->data_cache_lines = l2 > 0 && line > 0 ? (uint64_t)(l2 / line) : 0;
	b->deterministic = false;
	/* Noise floor from repeated short chases: 4 x the spread of medians. */
	double v[9];
	for (int i = 0; i < 9; i++)
		cpu_chase(b, 4096, 8, &v[i], err);
	qsort(v, 9, sizeof v[0], cmp_double);
	double spread = v[6] - v[2];
	b->noise = fmax(0.3, 4 * spread);
	char cpuid[1024];
	gpuvm_probe_cpuid_tlbs(cpuid, sizeof cpuid);
	snprintf(b->notes, sizeof b->notes, "%s; noise floor %.2f ns; %s", cp->page_mode, b->noise, cpuid);
	return 0;
}
