/* Strings gpuvm writes are valid UTF-8 (RFC 3629), whatever bytes came in.
 *
 * Names read from traces (kernel and allocation names) are scrubbed where
 * they are read: each byte that does not belong to a valid UTF-8 sequence
 * becomes '?', in place, so fixed-size name fields keep their size, and
 * the JSON, CSV, tables and figures that show them agree. Whole texts
 * written as JSON (which may also quote file paths and error messages)
 * are repaired once more on the way out, each invalid byte becoming
 * U+FFFD REPLACEMENT CHARACTER, so a strict parser always loads them.
 * Overlong forms, UTF-16 surrogates (U+D800-DFFF) and code points past
 * U+10FFFF count as invalid, as RFC 3629 section 3 says. */
#ifndef GPUVM_UTF8_H
#define GPUVM_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] does not
 * start one. */
size_t gpuvm_utf8_seq_len(const unsigned char *s, size_t n);

/* Whether all of s (NUL-terminated) is valid UTF-8. */
bool gpuvm_utf8_valid(const char *s);

/* In place: every byte outside a valid sequence becomes '?'. */
void gpuvm_utf8_scrub(char *s);

/* A malloc'd copy of s with every invalid byte replaced by U+FFFD; NULL
 * when out of memory. */
char *gpuvm_utf8_repair(const char *s);

#endif
