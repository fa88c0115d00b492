/* Regular input files only; see include/gpuvm/input_file.h. */
#include "gpuvm/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env_knob.h"

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

int gpuvm_input_open(const char *path, const char *what, struct gpuvm_error *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return gpuvm_fail(err, path, 0, NULL, "%s is %s; give a regular file", what,
				  kind_of(st.st_mode));
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

FILE *gpuvm_input_fopen(const char *path, const char *what, struct gpuvm_error *err)
{
	int fd = gpuvm_input_open(path, what, err);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(errno));
		close(fd);
	}
	return f;
}

/* Copies a non-regular input into a temp file: bounded in bytes and in the
 * time between bytes (input_file.h). fd is closed. */
static FILE *spool_stream(int fd, const char *path, const char *what, unsigned long long cap,
			  struct gpuvm_error *err)
{
	uint64_t wait_s = env_knob_u64("GPUVM_INPUT_WAIT_S", 10, 1, 86400);
	FILE *out = tmpfile();
	if (!out) {
		gpuvm_fail(err, path, 0, NULL, "cannot read %s: no temporary file: %s", what,
			   strerror(errno));
		close(fd);
		return NULL;
	}
	char buf[1 << 16];
	unsigned long long total = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, (int)(wait_s * 1000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			gpuvm_fail(err, path, 0, NULL, "%s: no data for %llu s (a FIFO with no "
				   "writer?); give a regular file", what, (unsigned long long)wait_s);
			goto fail;
		}
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			gpuvm_fail(err, path, 0, NULL, "cannot read %s: %s", what, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > cap) {
			gpuvm_fail(err, path, 0, NULL, "%s is not a regular file and gave more than "
				   "%llu MiB; give a regular file", what, cap >> 20);
			goto fail;
		}
		if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
			gpuvm_fail(err, path, 0, NULL, "cannot read %s: temporary file: %s", what,
				   strerror(errno));
			goto fail;
		}
	}
	close(fd);
	if (fflush(out) != 0 || fseek(out, 0, SEEK_SET) != 0) {
		gpuvm_fail(err, path, 0, NULL, "cannot read %s: temporary file: %s", what,
			   strerror(errno));
		fclose(out);
		return NULL;
	}
	return out;
fail:
	close(fd);
	fclose(out);
	return NULL;
}

FILE *gpuvm_input_fopen_any(const char *path, const char *what, unsigned long long max_bytes,
			    struct gpuvm_error *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(errno)),
		       NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(e)),
		       NULL;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		unsigned long long cap = GPUVM_INPUT_MAX_STREAM_BYTES;
		return spool_stream(fd, path, what, max_bytes && max_bytes < cap ? max_bytes : cap,
				    err);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return gpuvm_fail(err, path, 0, NULL, "%s is %s; give a regular file", what,
				  kind_of(st.st_mode)),
		       NULL;
	}
	if (max_bytes && (unsigned long long)st.st_size > max_bytes) {
		close(fd);
		return gpuvm_fail(err, path, 0, NULL, "%s is %llu bytes, more than the %llu it may "
				  "be", what, (unsigned long long)st.st_size, max_bytes),
		       NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		gpuvm_fail(err, path, 0, NULL, "cannot open %s: %s", what, strerror(errno));
		close(fd);
	}
	return f;
}
