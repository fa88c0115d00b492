/* gpuvm sweep --mpi: the ranks of an MPI job share one sweep.
 *
 *   mpirun -n 4 gpuvm sweep --mpi --gpu p100 --workload ... --csv out.csv
 *
 * Every rank parses the same arguments and validates the same grid (both
 * deterministic), runs the points i with i mod size == rank (as --shard
 * rank/size would), and sends its results to rank 0 as JSON text: the
 * text a worker process sends up its pipe, so rank 0 assembles exactly
 * the results a -j 1 run has and writes exactly its CSV, JSON and figure
 * (wall-time columns aside). Only rank 0 writes outputs or prints the
 * table; a point's failure is reported by the rank that ran it.
 *
 * Collective steps, in order, on every rank: init; agree (after
 * validation and rank 0's output checks: all go on or all stop); the sum
 * of the points to run (rank 0's progress line counts every rank's);
 * gather (after the points ran); the final exit status broadcast;
 * finalize. Between sum and gather the other ranks tell rank 0 of each
 * point they finish (progress messages, below). */
#include "sweep_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPUVM_HAVE_MPI
#include <mpi.h>

static bool started;

bool sweep_mpi_available(void) { return true; }

int sweep_mpi_init(int *argc, char ***argv, size_t *rank, size_t *size, struct gpuvm_error *err)
{
	int r = 0, n = 1;
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return gpuvm_fail(err, "--mpi", 0, NULL, "MPI_Init failed");
	started = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	*rank = (size_t)r;
	*size = (size_t)n;
	return 0;
}

bool sweep_mpi_agree(bool ok)
{
	int mine = ok ? 1 : 0, all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all == 1;
}

int sweep_mpi_status(int rc)
{
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return rc;
}

void sweep_mpi_finalize(void)
{
	if (started)
		MPI_Finalize();
	started = false;
}

static void die_oom(void)
{
	fprintf(stderr, "gpuvm sweep: out of memory\n");
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* A rank's report: {"rc":N,"failed":I,"error":"...","points":[{"i":I,
 * "r":{...}} or {"i":I,"e":"..."}]}. */
static char *pack(const struct sweep *s, int rc, size_t failed, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "rc", rc);
	cJSON_AddNumberToObject(o, "failed", failed == SIZE_MAX ? -1 : (double)failed);
	cJSON_AddStringToObject(o, "error", msg ? msg : "");
	cJSON *pts = cJSON_AddArrayToObject(o, "points");
	for (size_t i = 0; i < s->n_points; i++) {
		if (!sweep_selected(s, i) || (!s->results[i] && !s->errors[i]))
			continue;
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "i", (double)i);
		if (s->results[i])
			cJSON_AddItemReferenceToObject(p, "r", s->results[i]);
		else
			cJSON_AddStringToObject(p, "e", s->errors[i]);
		cJSON_AddItemToArray(pts, p);
	}
	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		die_oom();
	return text;
}

/* Rank 0 takes one rank's report into s. */
static int unpack(struct sweep *s, const char *text, size_t len, int *rc, size_t *failed,
		  struct gpuvm_error *err)
{
	cJSON *o = cJSON_ParseWithLength(text, len);
	const cJSON *pts = cJSON_GetObjectItemCaseSensitive(o, "points"), *p;
	if (!cJSON_IsArray(pts)) {
		cJSON_Delete(o);
		return gpuvm_fail(err, "--mpi", 0, NULL, "a rank sent a malformed report");
	}
	int r = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "rc"));
	if (r != 0 && *rc == 0) {
		double f = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "failed"));
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
		*rc = r;
		*failed = f >= 0 ? (size_t)f : SIZE_MAX;
		gpuvm_fail(err, NULL, 0, NULL, "%s", cJSON_IsString(e) ? e->valuestring : "");
	}
	cJSON_ArrayForEach(p, pts) {
		double di = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "i"));
		if (!(di >= 0 && di < (double)s->n_points))
			continue;
		size_t i = (size_t)di;
		cJSON *res = cJSON_DetachItemFromObjectCaseSensitive((cJSON *)p, "r");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "e");
		if (res) {
			cJSON_Delete(s->results[i]);
			s->results[i] = res;
		} else if (cJSON_IsString(e)) {
			free(s->errors[i]);
			s->errors[i] = strdup(e->valuestring);
			if (!s->errors[i])
				die_oom();
		}
	}
	cJSON_Delete(o);
	return 0;
}

int sweep_mpi_gather(struct sweep *s, int *rc, size_t *failed, struct gpuvm_error *err)
{
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank != 0) {
		char *text = pack(s, *rc, *failed, *rc ? err->msg : NULL);
		unsigned long long len = strlen(text);
		MPI_Send(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, 1, MPI_COMM_WORLD);
		/* in pieces: an MPI count is an int */
		for (unsigned long long off = 0; off < len;) {
			int n = len - off > (1u << 30) ? (1 << 30) : (int)(len - off);
			MPI_Send(text + off, n, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
			off += (unsigned long long)n;
		}
		free(text);
		return 0;
	}
	int bad = 0;
	for (int from = 1; from < size; from++) {
		unsigned long long len = 0;
		MPI_Recv(&len, 1, MPI_UNSIGNED_LONG_LONG, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		char *text = malloc(len + 1);
		if (!text)
			die_oom();
		for (unsigned long long off = 0; off < len;) {
			int n = len - off > (1u << 30) ? (1 << 30) : (int)(len - off);
			MPI_Recv(text + off, n, MPI_CHAR, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			off += (unsigned long long)n;
		}
		text[len] = 0;
		struct gpuvm_error e = {{0}};
		int before = *rc;
		if (!bad && unpack(s, text, len, rc, failed, &e) != 0) {
			bad = 1;
			*err = e;
		} else if (!bad && before == 0 && *rc != 0) {
			*err = e; /* the first failure, in rank order, is reported */
		}
		free(text);
	}
	if (bad) {
		*rc = 1;
		*failed = SIZE_MAX;
		return -1;
	}
	/* rank 0 now holds the whole grid */
	s->shard_i = 0;
	s->shard_n = 0;
	return 0;
}

/* Progress messages: one unsigned long long each, tag 3 (the gather uses
 * 1 and 2): a point's index, or END when the sending rank is through its
 * points. Small enough for MPI's eager protocol, so a send does not wait
 * for rank 0, which receives them between its own points and, once those
 * are done, until every rank has sent END (before the gather). */
#define TAG_PROGRESS 3
#define PROGRESS_END ULLONG_MAX

size_t sweep_mpi_sum(size_t n)
{
	unsigned long long mine = n, all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	return (size_t)all;
}

static void progress_send(unsigned long long v)
{
	MPI_Send(&v, 1, MPI_UNSIGNED_LONG_LONG, 0, TAG_PROGRESS, MPI_COMM_WORLD);
}

void sweep_mpi_progress_send(size_t point) { progress_send(point); }
void sweep_mpi_progress_end(void) { progress_send(PROGRESS_END); }

int sweep_mpi_progress_recv(bool wait, size_t *point)
{
	MPI_Status st;
	int flag = 1;
	if (wait)
		MPI_Probe(MPI_ANY_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, &st);
	else
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		return 0;
	unsigned long long v = 0;
	MPI_Recv(&v, 1, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	if (v == PROGRESS_END)
		return 2;
	*point = (size_t)v;
	return 1;
}

#else /* !GPUVM_HAVE_MPI */

bool sweep_mpi_available(void) { return false; }

int sweep_mpi_init(int *argc, char ***argv, size_t *rank, size_t *size, struct gpuvm_error *err)
{
	(void)argc, (void)argv, (void)rank, (void)size;
	return gpuvm_fail(err, "--mpi", 0, NULL,
			  "this gpuvm was built without MPI (install libopenmpi-dev and "
			  "rebuild; CMake option GPUVM_MPI)");
}

bool sweep_mpi_agree(bool ok) { return ok; }
int sweep_mpi_status(int rc) { return rc; }
void sweep_mpi_finalize(void) {}

int sweep_mpi_gather(struct sweep *s, int *rc, size_t *failed, struct gpuvm_error *err)
{
	(void)s, (void)rc, (void)failed, (void)err;
	return 0;
}

size_t sweep_mpi_sum(size_t n) { return n; }
void sweep_mpi_progress_send(size_t point) { (void)point; }
void sweep_mpi_progress_end(void) {}
int sweep_mpi_progress_recv(bool wait, size_t *point)
{
	(void)wait, (void)point;
	return 0;
}

#endif
