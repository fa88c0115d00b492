/* Output files that never replace what the user pointed at; see
 * include/gpuvm/output_file.h for the rules.
 *
 * Why: writers used to write PATH.tmp and rename() it over PATH, which run
 * as root replaces /dev/null with a regular file. Here the kind of the
 * target is decided once (lstat, then stat through a symlink) and only a
 * regular file or a new path is ever renamed over. */
#include "gpuvm/output_file.h"
#include "gpuvm/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temp files alive at once: a probe writes a figure per level plus CSVs,
 * a page map three files; 64 leaves room. */
#define MAX_TEMPS 64
#define MAX_DIRS 16

/* Read by the signal handler: a slot's name is complete before `used` is
 * set, and `used` is cleared before the name is reused. */
static struct {
	volatile sig_atomic_t used;
	char path[PATH_MAX];
} temps[MAX_TEMPS];
static char made_dirs[MAX_DIRS][PATH_MAX];
static volatile sig_atomic_t n_made_dirs;

/* Outputs closed inside a batch, published by commit. */
static struct staged {
	int slot;
	enum gpuvm_output_kind kind;
	char *target;
} staged[MAX_TEMPS];
static int n_staged;
static bool batch_open;

static int take_slot(const char *template_path, struct gpuvm_error *err, const char *what)
{
	if (strlen(template_path) >= PATH_MAX)
		return gpuvm_fail(err, what, 0, NULL, "path too long");
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used)
			continue;
		strcpy(temps[i].path, template_path);
		temps[i].used = 1;
		return i;
	}
	return gpuvm_fail(err, what, 0, NULL, "too many output files at once (at most %d)",
			  MAX_TEMPS);
}

static void drop_slot(int slot, bool remove_file)
{
	if (slot < 0)
		return;
	if (remove_file)
		unlink(temps[slot].path);
	temps[slot].used = 0;
}

/* The directory a path lives in ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Decides how path is written; *target is malloc'd. */
static int resolve(const char *path, const char *what, bool stdout_ok,
		   enum gpuvm_output_kind *kind, char **target, struct gpuvm_error *err)
{
	*target = NULL;
	if (!path || !*path)
		return gpuvm_fail(err, what, 0, NULL, "empty output file name");
	struct stat st;
	const char *real = path;
	char resolved[PATH_MAX];
	if (!strcmp(path, "-")) {
		if (!stdout_ok)
			return gpuvm_fail(err, what, 0, NULL, "'-' (standard output) is only for "
					  "textual outputs; give a file name");
		*kind = GPUVM_OUTPUT_STDOUT;
	} else if (lstat(path, &st) != 0) {
		if (errno != ENOENT)
			return gpuvm_fail(err, path, 0, NULL, "%s: %s", what, strerror(errno));
		*kind = GPUVM_OUTPUT_ATOMIC;
	} else {
		bool link = S_ISLNK(st.st_mode);
		if (link && stat(path, &st) != 0) {
			if (errno != ENOENT)
				return gpuvm_fail(err, path, 0, NULL, "%s: %s", what, strerror(errno));
			/* dangling: opening through the link creates its target */
			*kind = GPUVM_OUTPUT_DIRECT;
		} else if (S_ISDIR(st.st_mode)) {
			return gpuvm_fail(err, path, 0, NULL, "%s: is a directory", what);
		} else if (S_ISREG(st.st_mode)) {
			/* a link's regular target is what gets replaced, next to itself */
			if (link && !(real = realpath(path, resolved)))
				return gpuvm_fail(err, path, 0, NULL, "%s: %s", what, strerror(errno));
			*kind = GPUVM_OUTPUT_ATOMIC;
		} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
			*kind = GPUVM_OUTPUT_DIRECT;
		} else {
			return gpuvm_fail(err, path, 0, NULL, "%s: not a file, device or FIFO", what);
		}
	}
	*target = strdup(real);
	return *target ? 0 : gpuvm_fail(err, what, 0, NULL, "out of memory");
}

int gpuvm_output_check(const char *path, const char *what, bool stdout_ok,
		       struct gpuvm_error *err)
{
	enum gpuvm_output_kind kind;
	char *target;
	if (resolve(path, what, stdout_ok, &kind, &target, err))
		return -1;
	int rc = 0;
	if (kind == GPUVM_OUTPUT_ATOMIC) {
		char dir[PATH_MAX];
		dir_of(target, dir, sizeof dir);
		struct stat st;
		if (stat(dir, &st) != 0)
			rc = gpuvm_fail(err, path, 0, NULL, "%s: directory %s: %s", what, dir,
					strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			rc = gpuvm_fail(err, path, 0, NULL, "%s: %s is not a directory", what, dir);
		else if (access(dir, W_OK | X_OK) != 0)
			rc = gpuvm_fail(err, path, 0, NULL, "%s: directory %s is not writable", what,
					dir);
		else if (strlen(target) + 12 >= PATH_MAX)
			rc = gpuvm_fail(err, path, 0, NULL, "%s: path too long", what);
	} else if (kind == GPUVM_OUTPUT_DIRECT && access(target, F_OK) == 0 &&
		   access(target, W_OK) != 0) {
		rc = gpuvm_fail(err, path, 0, NULL, "%s: not writable: %s", what, strerror(errno));
	}
	free(target);
	return rc;
}

/* ---- claims: outputs resolved once ------------------------------------ */

#define MAX_CLAIMS 64

static struct claim {
	bool by_inode;	/* existing: dev/ino; new: name */
	dev_t dev;
	ino_t ino;
	char *name;	/* resolved directory + "/" + base name, or "-" */
	char what[64];
	char path[256];
} claims[MAX_CLAIMS];
static int n_claims;

void gpuvm_output_claims_reset(void)
{
	for (int i = 0; i < n_claims; i++)
		free(claims[i].name);
	n_claims = 0;
}

/* The resolved name of a path that does not exist yet: realpath of its
 * directory, then its last component. */
static char *resolved_new_name(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX];
	dir_of(path, dir, sizeof dir);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!realpath(dir, real))
		snprintf(real, sizeof real, "%s", dir);
	size_t n = strlen(real) + strlen(base) + 2;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
	return out;
}

int gpuvm_output_claim(const char *path, const char *what, struct gpuvm_error *err)
{
	if (!path || !*path)
		return gpuvm_fail(err, what, 0, NULL, "empty output file name");
	struct claim c = {0};
	snprintf(c.what, sizeof c.what, "%s", what);
	snprintf(c.path, sizeof c.path, "%s", path);
	struct stat st;
	size_t len = strlen(path);
	if (path[len - 1] == '/' || (strcmp(path, "-") && stat(path, &st) == 0 &&
				     S_ISDIR(st.st_mode)))
		return gpuvm_fail(err, what, 0, NULL, "'%s' is a directory, not an output file",
				  path);
	if (!strcmp(path, "-")) {
		c.name = strdup("-");
	} else if (stat(path, &st) == 0) {
		if (S_ISCHR(st.st_mode))
			return 0; /* /dev/null and the like take any number of writers */
		c.by_inode = true;
		c.dev = st.st_dev;
		c.ino = st.st_ino;
	} else {
		c.name = resolved_new_name(path);
	}
	if (!c.by_inode && !c.name)
		return gpuvm_fail(err, what, 0, NULL, "out of memory");
	for (int i = 0; i < n_claims; i++) {
		const struct claim *o = &claims[i];
		bool same = c.by_inode ? o->by_inode && o->dev == c.dev && o->ino == c.ino
				       : !o->by_inode && !strcmp(o->name, c.name);
		if (same) {
			free(c.name);
			return gpuvm_fail(err, what, 0, NULL,
					  "'%s' is the same file as %s '%s': two outputs would "
					  "overwrite each other", path, o->what, o->path);
		}
	}
	if (n_claims == MAX_CLAIMS) {
		free(c.name);
		return gpuvm_fail(err, what, 0, NULL, "too many outputs (at most %d)", MAX_CLAIMS);
	}
	claims[n_claims++] = c;
	return 0;
}

/* A temp file of ours: TEMPLATE with XXXXXX, registered before it exists. */
static int make_temp(const char *template_path, int *slot, struct gpuvm_error *err,
		     const char *what)
{
	*slot = take_slot(template_path, err, what);
	if (*slot < 0)
		return -1;
	int fd = mkstemp(temps[*slot].path);
	if (fd < 0) {
		gpuvm_fail(err, what, 0, NULL, "cannot create a file next to it: %s",
			   strerror(errno));
		drop_slot(*slot, false);
		*slot = -1;
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

int gpuvm_output_open(struct gpuvm_output *o, const char *path, struct gpuvm_error *err)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	if (resolve(path, path, true, &o->kind, &o->target, err))
		return -1;
	char tmpl[PATH_MAX];
	int fd = -1;
	if (o->kind == GPUVM_OUTPUT_ATOMIC) {
		if (snprintf(tmpl, sizeof tmpl, "%s.tmpXXXXXX", o->target) >= (int)sizeof tmpl) {
			gpuvm_fail(err, path, 0, NULL, "path too long");
			goto fail;
		}
		fd = make_temp(tmpl, &o->slot, err, path);
		if (fd < 0)
			goto fail;
		/* mkstemp makes 0600: give a replaced file its old mode, a new
		 * one the usual 0666 & ~umask */
		struct stat st;
		mode_t um = umask(0);
		umask(um);
		fchmod(fd, stat(o->target, &st) == 0 ? st.st_mode & 07777 : 0666 & ~um);
	} else if (batch_open) {
		/* spooled, and copied in place at commit */
		const char *dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
		snprintf(tmpl, sizeof tmpl, "%s/gpuvm-spool.XXXXXX", dir);
		fd = make_temp(tmpl, &o->slot, err, path);
		if (fd < 0)
			goto fail;
	} else if (o->kind == GPUVM_OUTPUT_STDOUT) {
		o->f = stdout;
		return 0;
	} else {
		fd = open(o->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			gpuvm_fail(err, path, 0, NULL, "cannot write: %s", strerror(errno));
			goto fail;
		}
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		gpuvm_fail(err, path, 0, NULL, "cannot write: %s", strerror(errno));
		close(fd);
		drop_slot(o->slot, true);
		goto fail;
	}
	return 0;
fail:
	free(o->target);
	o->target = NULL;
	o->slot = -1;
	return -1;
}

void gpuvm_output_cancel(struct gpuvm_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	drop_slot(o->slot, true);
	o->slot = -1;
	free(o->target);
	o->target = NULL;
}

/* why the first write to fd 1 failed (0: none has) */
static int stdout_errno;

static void stdout_note(int e)
{
	if (!stdout_errno)
		stdout_errno = e ? e : EIO;
}

/* Copies a spooled file to its in-place target (a device, a FIFO, stdout). */
static int copy_in_place(const char *spool, const struct staged *s, struct gpuvm_error *err)
{
	int in = open(spool, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return gpuvm_fail(err, s->target, 0, NULL, "spool file lost: %s", strerror(errno));
	int out = 1;
	if (s->kind == GPUVM_OUTPUT_STDOUT)
		fflush(stdout);
	else
		out = open(s->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0) {
		int e = errno;
		close(in);
		return gpuvm_fail(err, s->target, 0, NULL, "cannot write: %s", strerror(e));
	}
	char buf[1 << 16];
	int rc = 0;
	for (;;) {
		ssize_t r = read(in, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				rc = gpuvm_fail(err, s->target, 0, NULL, "spool: %s", strerror(errno));
			break;
		}
		for (ssize_t off = 0; off < r && !rc;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0 && s->kind == GPUVM_OUTPUT_STDOUT) {
				stdout_note(w < 0 ? errno : EIO);
				rc = gpuvm_output_stdout_fail(err);
			} else if (w <= 0) {
				rc = gpuvm_fail(err, s->target, 0, NULL, "cannot write: %s",
						w < 0 ? strerror(errno) : "no progress");
			}
			else
				off += w;
		}
		if (rc)
			break;
	}
	close(in);
	if (out != 1 && close(out) != 0 && !rc)
		rc = gpuvm_fail(err, s->target, 0, NULL, "cannot write: %s", strerror(errno));
	return rc;
}

int gpuvm_output_close(struct gpuvm_output *o, struct gpuvm_error *err)
{
	const char *name = o->kind == GPUVM_OUTPUT_STDOUT ? "standard output" : o->target;
	int rc = 0;
	if (o->f == stdout) {
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = gpuvm_output_stdout_fail(err);
		gpuvm_output_cancel(o); /* leaves stdout open */
		return rc;
	}
	int e = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	/* a regular file is on disk before it is renamed over the old one */
	if (!e && o->kind == GPUVM_OUTPUT_ATOMIC && fsync(fileno(o->f)) != 0)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno;
	o->f = NULL;
	if (!e && o->slot >= 0 && batch_open) {
		staged[n_staged++] = (struct staged){o->slot, o->kind, o->target};
		o->target = NULL;
		o->slot = -1;
		return 0;
	}
	if (!e && o->slot >= 0) {
		if (rename(temps[o->slot].path, o->target) != 0) {
			e = errno;
		} else {
			drop_slot(o->slot, false);
			o->slot = -1;
		}
	}
	if (e)
		rc = gpuvm_fail(err, name, 0, NULL, "cannot write: %s", strerror(e));
	gpuvm_output_cancel(o); /* what is left: a temp file, the target name */
	return rc;
}

int gpuvm_output_write_text(const char *path, const char *text, struct gpuvm_error *err)
{
	/* every text written (JSON above all) is valid UTF-8: bytes from
	 * traces, paths or messages that are not become U+FFFD */
	char *fixed = NULL;
	if (!gpuvm_utf8_valid(text)) {
		if (!(fixed = gpuvm_utf8_repair(text)))
			return gpuvm_fail(err, path, 0, NULL, "out of memory");
		text = fixed;
	}
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, path, err)) {
		free(fixed);
		return -1;
	}
	size_t len = strlen(text);
	if (fwrite(text, 1, len, o.f) != len) {
		int e = errno;
		free(fixed);
		gpuvm_output_cancel(&o);
		return gpuvm_fail(err, path, 0, NULL, "cannot write: %s", strerror(e));
	}
	free(fixed);
	return gpuvm_output_close(&o, err);
}

void gpuvm_output_batch_begin(void)
{
	batch_open = true;
}

static void drop_staged(void)
{
	for (int i = 0; i < n_staged; i++) {
		drop_slot(staged[i].slot, true);
		free(staged[i].target);
	}
	n_staged = 0;
}

int gpuvm_output_batch_commit(struct gpuvm_error *err)
{
	int rc = 0;
	/* in place first: a device or a full disk can still refuse them, and
	 * then no regular file has been published yet */
	for (int i = 0; i < n_staged && !rc; i++)
		if (staged[i].kind != GPUVM_OUTPUT_ATOMIC)
			rc = copy_in_place(temps[staged[i].slot].path, &staged[i], err);
	for (int i = 0; i < n_staged && !rc; i++) {
		struct staged *s = &staged[i];
		if (s->kind != GPUVM_OUTPUT_ATOMIC)
			continue;
		if (rename(temps[s->slot].path, s->target) != 0)
			rc = gpuvm_fail(err, s->target, 0, NULL, "cannot write: %s", strerror(errno));
		else
			drop_slot(s->slot, false);
	}
	drop_staged();
	batch_open = false;
	return rc;
}

void gpuvm_output_batch_abort(void)
{
	drop_staged();
	batch_open = false;
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used)
			drop_slot(i, true);
	for (sig_atomic_t i = n_made_dirs; i-- > 0;)
		rmdir(made_dirs[i]); /* fails, as it should, unless empty */
	n_made_dirs = 0;
}

int gpuvm_output_mkdir(const char *dir, struct gpuvm_error *err)
{
	if (strlen(dir) >= PATH_MAX)
		return gpuvm_fail(err, dir, 0, NULL, "path too long");
	if (mkdir(dir, 0777) == 0) {
		if (n_made_dirs < MAX_DIRS) {
			strcpy(made_dirs[n_made_dirs], dir);
			n_made_dirs = n_made_dirs + 1;
		}
	} else if (errno != EEXIST) {
		return gpuvm_fail(err, dir, 0, NULL, "cannot create directory: %s", strerror(errno));
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return gpuvm_fail(err, dir, 0, NULL, "not a directory");
	if (access(dir, W_OK | X_OK) != 0)
		return gpuvm_fail(err, dir, 0, NULL, "directory not writable");
	return 0;
}

void gpuvm_output_keep_dirs(void)
{
	n_made_dirs = 0;
}

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used)
			unlink(temps[i].path);
	for (sig_atomic_t i = n_made_dirs; i-- > 0;)
		rmdir(made_dirs[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void gpuvm_output_catch_signals(bool on)
{
	struct sigaction sa = {0};
	sa.sa_handler = on ? on_fatal_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static ssize_t stdout_cookie_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(STDOUT_FILENO, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			stdout_note(w < 0 ? errno : EIO);
			/* what was written stays written; stdio marks the error */
			return off ? (ssize_t)off : -1;
		}
		off += (size_t)w;
	}
	return (ssize_t)n;
}

void gpuvm_output_stdout_track(void)
{
	cookie_io_functions_t io = {.write = stdout_cookie_write};
	FILE *f = fopencookie(NULL, "w", io);
	if (!f)
		return; /* the plain stdout; reports fall back to errno */
	/* as the C library buffers stdout: by line on a terminal */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
}

int gpuvm_output_stdout_fail(struct gpuvm_error *err)
{
	int e = stdout_errno ? stdout_errno : errno ? errno : EIO;
	return gpuvm_fail(err, "standard output", 0, NULL, "write failed: %s", strerror(e));
}

int gpuvm_output_check_stdout(struct gpuvm_error *err)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		return gpuvm_output_stdout_fail(err);
	return 0;
}
