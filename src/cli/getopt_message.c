/* getopt_long error messages (getopt_message.h). */
#include "getopt_message.h"

#include <stdio.h>
#include <string.h>

void gpuvm_getopt_message(int c, char **argv, int optind_now, int optopt_now, char *buf,
			  size_t len)
{
	/* the word getopt_long stopped at: the one before optind, or, inside
	 * a cluster of short options (-qz), the one at optind */
	const char *arg = optind_now > 0 ? argv[optind_now - 1] : "";
	char name[64];
	if (strncmp(arg, "--", 2) == 0) {
		size_t n = strcspn(arg, "=");
		snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg);
	} else if (optopt_now > 0 && optopt_now < 128) {
		snprintf(name, sizeof name, "-%c", optopt_now);
	} else {
		snprintf(name, sizeof name, "%s", arg);
	}
	if (c == ':')
		snprintf(buf, len, "option %s needs a value", name);
	else if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') && optopt_now)
		snprintf(buf, len, "option %s takes no value", name);
	else
		snprintf(buf, len, "unknown option '%s'", name);
}
