/* One wording for getopt_long's errors across commands (sweep, bench):
 * with opterr = 0 and an optstring that starts with ':', getopt_long
 * returns '?' or ':' and leaves the message to us, so it can name the
 * option as the user typed it. */
#ifndef GPUVM_CLI_GETOPT_MESSAGE_H
#define GPUVM_CLI_GETOPT_MESSAGE_H

#include <stddef.h>

/* Writes why getopt_long returned c ('?' or ':') into buf: "unknown
 * option '--frobnicate'", "option --csv needs a value", "option --quiet
 * takes no value". argv and optind as getopt_long left them. */
void gpuvm_getopt_message(int c, char **argv, int optind_now, int optopt_now, char *buf,
			  size_t len);

#endif
