/* Regular input files only; see include/gpuvm/input_file.h. */
#include "gpuvm/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
