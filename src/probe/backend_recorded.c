/* Probe backend that replays timings recorded on a real GPU by
 * cuda/tlb_probe.cu. Rows (one CSV format for both benchmarks, so files
 * can be concatenated):
 *   kind,stride_bytes,hops,sm_fill,sm_disrupt,latency_cycles
 *   chase,2097152,17,0,-1,301.5       property benchmark point
 *   share,2097152,11,3,-1,293.0       sharing baseline (no disrupting SM)
 *   share,2097152,11,3,7,301.9        fill on 3, disrupt on 7, measure on 3
 * '#' lines are comments; "# sms=56" gives the SM count (else the largest
 * SM id seen + 1). A header row starting with "kind" is skipped. */
#include "gpuvm/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "gpuvm/input_file.h"
#include "gpuvm/units.h"

static int add_point(struct gpuvm_probe_backend *b, size_t *cap, struct gpuvm_probe_point p)
{
	return VEC_PUSH(b->recorded, b->n_recorded, *cap, p);
}

static int add_cell(struct gpuvm_probe_backend *b, size_t *cap, struct gpuvm_probe_share_cell c)
{
	return VEC_PUSH(b->recorded_cells, b->n_recorded_cells, *cap, c);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

static int parse_file(struct gpuvm_probe_backend *b, const char *path, size_t *pcap, size_t *ccap,
		      uint32_t *sms_decl, uint32_t *sms_seen, struct gpuvm_error *err)
{
	FILE *f = gpuvm_input_fopen_any(path, "--input", 0, err);
	if (!f)
		return -1;
	char line[1024];
	int ln = 0, rc = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = gpuvm_fail(err, path, ln, NULL, "line too long");
			break;
		}
		char *s = trim(line);
		if (!*s)
			continue;
		if (*s == '#') {
			char *eq = strstr(s, "sms=");
			uint64_t v;
			if (eq && !gpuvm_parse_u64(trim(eq + 4), &v)) {
				if (v == 0 || v > GPUVM_MAX_SMS) {
					rc = gpuvm_fail(err, path, ln, "sms", "must be 1..%d", GPUVM_MAX_SMS);
					break;
				}
				*sms_decl = (uint32_t)v;
			}
			continue;
		}
		if (!strncmp(s, "kind", 4))
			continue;
		char *field[7];
		int nf = 0;
		for (char *tok = s; nf < 7;) {
			field[nf++] = tok;
			char *comma = strchr(tok, ',');
			if (!comma)
				break;
			*comma = 0;
			tok = comma + 1;
		}
		if (nf != 6) {
			rc = gpuvm_fail(err, path, ln, NULL,
					"expected 6 fields kind,stride_bytes,hops,sm_fill,sm_disrupt,latency_cycles; got %d", nf);
			break;
		}
		for (int i = 0; i < nf; i++)
			field[i] = trim(field[i]);
		uint64_t stride, hops, fill = 0, disrupt = GPUVM_PROBE_NO_SM;
		double lat;
		if (gpuvm_parse_u64(field[1], &stride) || stride == 0) {
			rc = gpuvm_fail(err, path, ln, "stride_bytes", "'%s' is not a positive integer", field[1]);
			break;
		}
		if (gpuvm_parse_u64(field[2], &hops) || hops == 0 || hops > UINT32_MAX) {
			rc = gpuvm_fail(err, path, ln, "hops", "'%s' is not a positive 32-bit integer", field[2]);
			break;
		}
		if (gpuvm_parse_double(field[5], &lat) || lat < 0) {
			rc = gpuvm_fail(err, path, ln, "latency_cycles", "'%s' is not a non-negative number", field[5]);
			break;
		}
		if (!strcmp(field[0], "chase")) {
			if (add_point(b, pcap, (struct gpuvm_probe_point){stride, (uint32_t)hops, lat})) {
				rc = gpuvm_fail(err, path, ln, NULL, "out of memory");
				break;
			}
			continue;
		}
		if (strcmp(field[0], "share")) {
			rc = gpuvm_fail(err, path, ln, "kind", "'%s' is not chase or share", field[0]);
			break;
		}
		if (gpuvm_parse_u64(field[3], &fill) || fill >= GPUVM_MAX_SMS) {
			rc = gpuvm_fail(err, path, ln, "sm_fill", "'%s' is not an SM id 0..%d", field[3],
					GPUVM_MAX_SMS - 1);
			break;
		}
		if (strcmp(field[4], "-1") &&
		    (gpuvm_parse_u64(field[4], &disrupt) || disrupt >= GPUVM_MAX_SMS)) {
			rc = gpuvm_fail(err, path, ln, "sm_disrupt", "'%s' is not -1 or an SM id 0..%d",
					field[4], GPUVM_MAX_SMS - 1);
			break;
		}
		if (fill + 1 > *sms_seen)
			*sms_seen = (uint32_t)fill + 1;
		if (disrupt != GPUVM_PROBE_NO_SM && disrupt + 1 > *sms_seen)
			*sms_seen = (uint32_t)disrupt + 1;
		struct gpuvm_probe_share_cell c = {stride, (uint32_t)hops, (uint32_t)fill,
						   (uint32_t)disrupt, lat};
		if (add_cell(b, ccap, c)) {
			rc = gpuvm_fail(err, path, ln, NULL, "out of memory");
			break;
		}
	}
	if (!rc && ferror(f))
		rc = gpuvm_fail(err, path, 0, NULL, "read error");
	fclose(f);
	return rc;
}

static const struct gpuvm_probe_backend_ops recorded_ops = {0};

int gpuvm_probe_backend_recorded(struct gpuvm_probe_backend *b, const char *const *paths, size_t n,
				 struct gpuvm_error *err)
{
	memset(b, 0, sizeof *b);
	b->ops = &recorded_ops;
	size_t pcap = 0, ccap = 0;
	uint32_t sms_decl = 0, sms_seen = 0;
	for (size_t i = 0; i < n; i++)
		if (parse_file(b, paths[i], &pcap, &ccap, &sms_decl, &sms_seen, err)) {
			gpuvm_probe_backend_free(b);
			return -1;
		}
	if (!b->n_recorded) {
		gpuvm_fail(err, paths[0], 0, NULL, "no chase rows: record the property benchmark first "
			   "(tlb_probe chase > FILE)");
		gpuvm_probe_backend_free(b);
		return -1;
	}
	if (sms_decl && sms_seen > sms_decl) {
		gpuvm_fail(err, paths[0], 0, "sms", "declares %u SMs but rows name SM %u", sms_decl,
			   sms_seen - 1);
		gpuvm_probe_backend_free(b);
		return -1;
	}
	b->ops = &recorded_ops;
	snprintf(b->target, sizeof b->target, "cuda:%s", paths[0]);
	snprintf(b->unit, sizeof b->unit, "cycles");
	b->sms = sms_decl ? sms_decl : sms_seen;
	/* clock64 timings of one warp on a real GPU wander by a few cycles
	 * (Karnagel et al. DaMoN'17 raw results in gcoe-dresden/cuda-gpu-tlb
	 * results/: the steps are 8-110 cycles). */
	b->noise = 3.0;
	snprintf(b->notes, sizeof b->notes,
		 "Timings recorded on a GPU by cuda/tlb_probe.cu (%zu chase points, %zu sharing cells); "
		 "analysed here, nothing ran on a GPU in this process.",
		 b->n_recorded, b->n_recorded_cells);
	return 0;
}
