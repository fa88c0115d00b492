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
#include <fnmatch.h>
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

/* calibrate --plot claims 4 files a preset, for up to 40 presets */
#define MAX_CLAIMS 256

static struct claim {
	bool by_inode;	/* an existing file: dev/ino (and name); new: name */
	bool dir;	/* a directory whose files matching files[] the command writes */
	const char *const *files;
	dev_t dev;
	ino_t ino;
	char *name;	/* resolved directory + "/" + base name, or "-" */
	char what[96];
	char path[256];
} claims[MAX_CLAIMS];
static int n_claims;
static bool enforced;

void gpuvm_output_claims_reset(void)
{
	for (int i = 0; i < n_claims; i++)
		free(claims[i].name);
	n_claims = 0;
}

void gpuvm_output_claims_enforce(bool on)
{
	enforced = on;
}

/* The resolved name of a path that need not exist yet: made absolute,
 * then walked a component at a time - "." dropped, ".." back one, and
 * each prefix that exists replaced by its realpath (symlinks followed) -
 * so "x", "./x", "d/../x" and "new/../x" are one name, even under a
 * directory not made yet. NULL when out of memory or too long. */
static char *resolved_new_name(const char *path)
{
	char acc[PATH_MAX], real[PATH_MAX];
	if (path[0] == '/')
		acc[0] = 0;
	else if (!getcwd(acc, sizeof acc))
		return NULL;
	size_t n = strlen(acc);
	if (n == 1)
		acc[n = 0] = 0; /* "/" */
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (!len)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(acc, '/');
			n = slash ? (size_t)(slash - acc) : 0;
			acc[n] = 0;
		} else {
			if (n + 1 + len >= sizeof acc)
				return NULL;
			acc[n++] = '/';
			memcpy(acc + n, p, len);
			acc[n += len] = 0;
			if (realpath(acc, real) && strlen(real) < sizeof acc) {
				strcpy(acc, real);
				n = strcmp(real, "/") ? strlen(real) : 0;
				acc[n] = 0;
			}
		}
		p += len;
	}
	return strdup(n ? acc : "/");
}

/* What a path resolves to, for claims: -1 with err; 1 for a character
 * device (any number of writers, nothing to record); 0 with *c filled. */
static int claim_key(const char *path, const char *what, struct claim *c,
		     struct gpuvm_error *err)
{
	struct stat st;
	if (!strcmp(path, "-")) {
		c->name = strdup("-");
	} else if (stat(path, &st) == 0) {
		if (S_ISCHR(st.st_mode))
			return 1; /* /dev/null and the like take any number of writers */
		c->by_inode = true;
		c->dev = st.st_dev;
		c->ino = st.st_ino;
		/* found by name too: a file made after a claim by name (a
		 * checkpoint's second write), a directory's files */
		c->name = resolved_new_name(path);
	} else {
		c->name = resolved_new_name(path);
	}
	if (!c->name)
		return gpuvm_fail(err, what, 0, NULL, "out of memory");
	return 0;
}

static bool same_target(const struct claim *a, const struct claim *b)
{
	if (a->by_inode && b->by_inode)
		return a->dev == b->dev && a->ino == b->ino;
	return !strcmp(a->name, b->name);
}

/* Whether file claim f is one of the files directory claim d writes. */
static bool in_dir(const struct claim *f, const struct claim *d)
{
	size_t n = strlen(d->name);
	if (n && d->name[n - 1] == '/')
		n--; /* "/" */
	const char *base = f->name + n + 1;
	if (strncmp(f->name, d->name, n) || f->name[n] != '/' || strchr(base, '/'))
		return false;
	for (const char *const *p = d->files; p && *p; p++)
		if (!fnmatch(*p, base, 0))
			return true;
	return false;
}

/* Whether two directory claims on one directory can write one file: a
 * pattern of one matches a pattern of the other (the names are literal or
 * simple globs: "level*.png"). */
static bool dirs_overlap(const struct claim *a, const struct claim *b)
{
	for (const char *const *p = a->files; p && *p; p++)
		for (const char *const *q = b->files; q && *q; q++)
			if (!fnmatch(*p, *q, 0) || !fnmatch(*q, *p, 0))
				return true;
	return false;
}

static bool conflict(const struct claim *c, const struct claim *o)
{
	if (c->dir && o->dir) /* one directory, or one where the other writes a file */
		return (same_target(c, o) && dirs_overlap(c, o)) || in_dir(c, o) || in_dir(o, c);
	if (c->dir)
		return same_target(c, o) || in_dir(o, c);
	if (o->dir)
		return same_target(c, o) || in_dir(c, o);
	return same_target(c, o) || !strcmp(c->name, o->name);
}

static int add_claim(const char *path, const char *what, const char *const *dir_files,
		     struct gpuvm_error *err)
{
	if (!path || !*path)
		return gpuvm_fail(err, what, 0, NULL, "empty output file name");
	bool dir = dir_files != NULL;
	struct claim c = {.dir = dir, .files = dir_files};
	snprintf(c.what, sizeof c.what, "%s", what);
	snprintf(c.path, sizeof c.path, "%s", path);
	struct stat st;
	size_t len = strlen(path);
	bool is_dir = strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (!dir && (path[len - 1] == '/' || is_dir))
		return gpuvm_fail(err, what, 0, NULL, "'%s' is a directory, not an output file",
				  path);
	char trimmed[PATH_MAX];
	if (dir) {
		if (!strcmp(path, "-"))
			return gpuvm_fail(err, what, 0, NULL, "'-' is not a directory");
		/* "cache/" and "cache" name one directory */
		snprintf(trimmed, sizeof trimmed, "%s", path);
		for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
			trimmed[n - 1] = 0;
		path = trimmed;
	}
	int k = claim_key(path, what, &c, err);
	if (k)
		return k < 0 ? -1 : 0;
	for (int i = 0; i < n_claims; i++) {
		const struct claim *o = &claims[i];
		if (conflict(&c, o)) {
			free(c.name);
			return gpuvm_fail(err, what, 0, NULL,
					  "'%s' is the same file as %s '%s': two outputs would "
					  "overwrite each other", c.path, o->what, o->path);
		}
	}
	if (n_claims == MAX_CLAIMS) {
		free(c.name);
		return gpuvm_fail(err, what, 0, NULL, "too many outputs (at most %d)", MAX_CLAIMS);
	}
	claims[n_claims++] = c;
	return 0;
}

int gpuvm_output_claim(const char *path, const char *what, struct gpuvm_error *err)
{
	return add_claim(path, what, NULL, err);
}

int gpuvm_output_claim_dir(const char *dir, const char *const *files, const char *what,
			   struct gpuvm_error *err)
{
	static const char *const none[] = {NULL};
	return add_claim(dir, what, files ? files : none, err);
}

bool gpuvm_output_claimed(const char *path)
{
	struct claim c = {0};
	struct gpuvm_error err;
	int k = claim_key(path, path, &c, &err);
	if (k)
		return k > 0;
	bool found = false;
	for (int i = 0; i < n_claims && !found; i++)
		found = claims[i].dir ? in_dir(&c, &claims[i]) : conflict(&c, &claims[i]);
	free(c.name);
	return found;
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
	if (enforced && path && *path && !gpuvm_output_claimed(path))
		return gpuvm_fail(err, path, 0, NULL, "internal error: this output was not claimed "
				  "before the run (every file a command writes is claimed first: "
				  "gpuvm_output_claim)");
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
