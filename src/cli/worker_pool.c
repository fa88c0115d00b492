/* Tasks in forked worker processes (worker_pool.h). A worker writes one
 * byte, 'O' (a result) or 'E' (a failure), then its answer, to its pipe
 * and exits; the parent reads every running worker's pipe as data comes
 * (poll), so no worker blocks on a full pipe, and reaps it at the end. */
#include "cli/worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuvm/output_file.h"

int worker_answer_add(struct worker_answer *a, const void *p, size_t n)
{
	if (a->cap - a->len < n) {
		size_t cap = a->cap ? a->cap : 4096;
		while (cap - a->len < n)
			cap *= 2;
		char *d = realloc(a->data, cap);
		if (!d)
			return -1;
		a->data = d;
		a->cap = cap;
	}
	if (n)
		memcpy(a->data + a->len, p, n);
	a->len += n;
	return 0;
}

struct worker {
	pid_t pid; /* 0: free */
	int fd;
	size_t task;
	struct worker_answer in;
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

static void worker_main(worker_task_fn task, void *ctx, size_t i, int fd)
{
	gpuvm_output_catch_signals(false); /* a worker writes no output */
	struct worker_answer a = {0};
	int rc = task(ctx, i, &a);
	write_all(fd, rc ? "E" : "O", 1);
	write_all(fd, a.data, a.len);
	_exit(0);
}

static int spawn(worker_task_fn task, void *ctx, size_t i, struct worker *w,
		 struct gpuvm_error *err)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return gpuvm_fail(err, NULL, 0, "--jobs", "pipe: %s", strerror(errno));
	fflush(NULL); /* nothing buffered is written twice */
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return gpuvm_fail(err, NULL, 0, "--jobs", "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* getppid() covers a parent that died before prctl */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(5);
		close(fds[0]);
		worker_main(task, ctx, i, fds[1]);
	}
	close(fds[1]);
	*w = (struct worker){.pid = pid, .fd = fds[0], .task = i};
	return 0;
}

/* w's pipe ended: reap it, then done() with its answer. done()'s return. */
static int finish(struct worker *w, worker_done_fn done, void *ctx)
{
	close(w->fd);
	int status = 0;
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	char why[96];
	int rc;
	if (WIFSIGNALED(status)) {
		snprintf(why, sizeof why, "worker killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		rc = done(ctx, w->task, WORKER_LOST, why, strlen(why));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || w->in.len == 0) {
		snprintf(why, sizeof why, "worker failed (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		rc = done(ctx, w->task, WORKER_LOST, why, strlen(why));
	} else {
		rc = done(ctx, w->task, w->in.data[0] == 'O' ? WORKER_RESULT : WORKER_TASK_FAILED,
			  w->in.data + 1, w->in.len - 1);
	}
	free(w->in.data);
	w->in = (struct worker_answer){0};
	return rc;
}

int worker_pool_run(size_t n, unsigned jobs, worker_task_fn task, worker_done_fn done, void *ctx,
		    struct gpuvm_error *err)
{
	struct worker *ws = calloc(jobs ? jobs : 1, sizeof *ws);
	struct pollfd *pfd = calloc(jobs ? jobs : 1, sizeof *pfd);
	unsigned *of = calloc(jobs ? jobs : 1, sizeof *of);
	int rc = 0; /* 1: done() stopped it; -1: the pool failed */
	size_t next = 0, running = 0;
	size_t first_failed = SIZE_MAX; /* the earliest task done() answered -3 for */
	if (!ws || !pfd || !of) {
		rc = gpuvm_fail(err, NULL, 0, "--jobs", "out of memory");
		goto out;
	}
	while (running || (next < n && !rc)) {
		for (unsigned k = 0; k < jobs && next < n && !rc; k++) {
			if (ws[k].pid)
				continue;
			if (spawn(task, ctx, next, &ws[k], err)) {
				rc = -1;
				goto out;
			}
			next++;
			running++;
		}
		nfds_t np = 0;
		for (unsigned k = 0; k < jobs; k++)
			if (ws[k].pid) {
				pfd[np] = (struct pollfd){.fd = ws[k].fd, .events = POLLIN};
				of[np++] = k;
			}
		if (!np)
			break;
		if (poll(pfd, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = gpuvm_fail(err, NULL, 0, "--jobs", "poll: %s", strerror(errno));
			goto out;
		}
		for (nfds_t p = 0; p < np; p++) {
			if (!(pfd[p].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			struct worker *w = &ws[of[p]];
			char buf[65536];
			ssize_t got = read(w->fd, buf, sizeof buf);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				if (worker_answer_add(&w->in, buf, (size_t)got)) {
					rc = gpuvm_fail(err, NULL, 0, "--jobs", "out of memory");
					goto out;
				}
				continue;
			}
			/* the end of the answer (a read error leaves it short) */
			running--;
			size_t task_i = w->task;
			int stop = finish(w, done, ctx);
			if (stop && !rc)
				rc = 1;
			if (stop == -3 && task_i < first_failed)
				first_failed = task_i;
			if (stop != -2 && first_failed != SIZE_MAX) {
				/* ordered failure: stop the rest once no task
				 * before it runs (tasks start in order, so every
				 * one before it has then reached done()) */
				stop = -2;
				for (unsigned k = 0; k < jobs; k++)
					if (ws[k].pid && ws[k].task < first_failed)
						stop = -3;
			}
			for (unsigned k = 0; stop == -2 && k < jobs; k++)
				if (ws[k].pid)
					kill(ws[k].pid, SIGTERM);
		}
	}
out:
	for (unsigned k = 0; ws && k < jobs; k++)
		if (ws[k].pid) {
			kill(ws[k].pid, SIGKILL);
			close(ws[k].fd);
			while (waitpid(ws[k].pid, NULL, 0) < 0 && errno == EINTR)
				;
			free(ws[k].in.data);
		}
	free(ws);
	free(pfd);
	free(of);
	return rc;
}
