/* `gpuvm validate --jobs N`: the manifest's replays run by N worker
 * processes at once.
 *
 * - Each worker is a fork that replays one row exactly as the serial loop
 *   does (validate_run_row) and sends its launches back through a pipe;
 *   the parent then computes the row's results from them
 *   (validate_row_results). A replay is deterministic and shares nothing
 *   with another, so every row's numbers are those of --jobs 1.
 * - A row that reads an earlier row's replay (same trace and preset) is
 *   not replayed by a worker: once the replays are in, the serial loop
 *   reads it from that row, as with --jobs 1.
 * - Failures: the first failing row in manifest order is the one
 *   reported, as the serial loop would report it; no row after it is
 *   started once it is known. A worker that dies (a signal, no answer)
 *   fails its row with what happened.
 * - Processes, not threads: a replay sets process-wide context (the
 *   host-memory bound's message) and a crash stays in its worker. Workers
 *   die with the parent (PR_SET_PDEATHSIG). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/validate_internal.h"
#include "gpuvm/output_file.h"

/* what a worker sends after 'O': then n launches */
struct replay_head {
	uint64_t kernels;
	double kernel_cycles;
	uint64_t n;
};

struct job {
	pid_t pid; /* 0: free */
	int fd;
	size_t row;
	char *buf;
	size_t len, cap;
};

static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);
		c += w;
		n -= (size_t)w;
	}
}

static void worker(struct manifest *m, size_t i, int fd)
{
	gpuvm_output_catch_signals(false); /* a worker writes no output */
	struct gpuvm_error e = {{0}};
	struct vrow *r = &m->rows[i];
	if (validate_run_row(m, r, false, &e) != 0) {
		write_all(fd, "E", 1);
		write_all(fd, e.msg, strlen(e.msg));
		_exit(0);
	}
	struct replay_head h = {r->kernels, r->kernel_cycles, r->n_launches};
	write_all(fd, "O", 1);
	write_all(fd, &h, sizeof h);
	for (size_t k = 0; k < r->n_launches; k++) {
		struct gpuvm_kernel_stats s = r->launches[k];
		s.counters = NULL; /* the parent's own memory has none */
		write_all(fd, &s, sizeof s);
	}
	_exit(0);
}

static int spawn(struct manifest *m, size_t i, struct job *j, struct gpuvm_error *err)
{
	int fds[2];
	if (pipe(fds) != 0)
		return gpuvm_fail(err, NULL, 0, "--jobs", "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return gpuvm_fail(err, NULL, 0, "--jobs", "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(5);
		close(fds[0]);
		worker(m, i, fds[1]);
	}
	close(fds[1]);
	*j = (struct job){.pid = pid, .fd = fds[0], .row = i};
	return 0;
}

/* The worker's pipe reached its end: reap it and take its answer into its
 * row. 0, or -1 with *err (the row's failure, or the worker's). */
static int finish(struct manifest *m, struct job *j, struct gpuvm_error *err)
{
	close(j->fd);
	int status = 0;
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = 0;
	struct vrow *r = &m->rows[j->row];
	int rc = -1;
	struct replay_head h;
	if (WIFSIGNALED(status))
		gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "the replay's worker was killed by signal %d (%s)",
			   WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || j->len == 0)
		gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "the replay's worker failed (exit status %d)",
			   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else if (j->buf[0] == 'E') /* the row's own message, file and line in it */
		snprintf(err->msg, sizeof err->msg, "%.*s", (int)(j->len - 1), j->buf + 1);
	else if (j->len < 1 + sizeof h)
		gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "the replay's worker sent a short answer");
	else {
		memcpy(&h, j->buf + 1, sizeof h);
		size_t want = 1 + sizeof h + h.n * sizeof(struct gpuvm_kernel_stats);
		if (h.n > j->len || j->len != want) {
			gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "the replay's worker sent a malformed answer");
		} else if (!(r->launches = malloc((h.n ? h.n : 1) * sizeof *r->launches))) {
			gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "out of memory for the launches' durations");
		} else {
			if (h.n)
				memcpy(r->launches, j->buf + 1 + sizeof h, h.n * sizeof *r->launches);
			r->n_launches = h.n;
			r->kernels = h.kernels;
			r->kernel_cycles = h.kernel_cycles;
			rc = validate_row_results(m, r, r, err);
		}
	}
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
	return rc;
}

/* Whether an earlier row replays r's trace on r's preset (r is read from it). */
static bool reads_earlier(const struct manifest *m, const struct vrow *r)
{
	for (const struct vrow *o = m->rows; o < r; o++)
		if (!o->skipped && !strcmp(o->trace_path, r->trace_path) && !strcmp(o->preset, r->preset))
			return true;
	return false;
}

int validate_run_jobs(struct manifest *m, unsigned jobs, struct validate_progress *prog,
		      struct gpuvm_error *err)
{
	size_t *todo = malloc((m->n ? m->n : 1) * sizeof *todo), n_todo = 0;
	struct job *js = calloc(jobs, sizeof *js);
	struct pollfd *pfd = calloc(jobs, sizeof *pfd);
	size_t *of = calloc(jobs, sizeof *of);
	if (!todo || !js || !pfd || !of) {
		free(todo), free(js), free(pfd), free(of);
		return gpuvm_fail(err, NULL, 0, "--jobs", "out of memory");
	}
	for (size_t i = 0; i < m->n; i++)
		if (!m->rows[i].skipped && !reads_earlier(m, &m->rows[i]))
			todo[n_todo++] = i;
	size_t next = 0, running = 0, failed_row = SIZE_MAX;
	struct gpuvm_error first = {{0}}, e;
	int rc = 0;
	while (running || (next < n_todo && failed_row == SIZE_MAX)) {
		/* rows in order; none past a known failure */
		for (unsigned k = 0; k < jobs && next < n_todo && failed_row == SIZE_MAX; k++) {
			if (js[k].pid)
				continue;
			if (spawn(m, todo[next], &js[k], err) != 0) {
				rc = -1;
				goto stop;
			}
			next++;
			running++;
		}
		nfds_t np = 0;
		for (unsigned k = 0; k < jobs; k++)
			if (js[k].pid) {
				pfd[np] = (struct pollfd){.fd = js[k].fd, .events = POLLIN};
				of[np++] = k;
			}
		if (!np)
			break;
		if (poll(pfd, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = gpuvm_fail(err, NULL, 0, "--jobs", "poll: %s", strerror(errno));
			goto stop;
		}
		for (nfds_t p = 0; p < np; p++) {
			if (!(pfd[p].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			struct job *j = &js[of[p]];
			if (j->cap - j->len < 65536) {
				size_t cap = j->cap ? 2 * j->cap : 1u << 17;
				char *b = realloc(j->buf, cap);
				if (!b) {
					rc = gpuvm_fail(err, NULL, 0, "--jobs", "out of memory");
					goto stop;
				}
				j->buf = b;
				j->cap = cap;
			}
			ssize_t got = read(j->fd, j->buf + j->len, j->cap - j->len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				j->len += (size_t)got;
				continue;
			}
			/* end of the answer (or a read error: the answer is short) */
			size_t row = j->row;
			running--;
			if (finish(m, j, &e) != 0) {
				if (row < failed_row) {
					failed_row = row;
					first = e;
				}
			} else {
				validate_progress_row(prog, m->rows[row].f[C_NAME]);
			}
		}
	}
stop:
	/* after a failure of the parent's own (pipe, fork, poll, memory), the
	 * workers still running are stopped */
	for (unsigned k = 0; k < jobs; k++)
		if (js[k].pid) {
			kill(js[k].pid, SIGKILL);
			close(js[k].fd);
			while (waitpid(js[k].pid, NULL, 0) < 0 && errno == EINTR)
				;
			free(js[k].buf);
		}
	free(todo), free(js), free(pfd), free(of);
	if (rc)
		return -1;
	if (failed_row != SIZE_MAX) {
		*err = first;
		return -1;
	}
	/* the rows read from an earlier row's replay, as the serial loop */
	for (size_t i = 0; i < m->n; i++) {
		struct vrow *r = &m->rows[i];
		if (r->skipped || r->launches)
			continue;
		if (validate_run_row(m, r, false, err))
			return -1;
		validate_progress_row(prog, r->f[C_NAME]);
	}
	return 0;
}
