/* A GPGPU-Sim / Accel-Sim gpgpusim.config as a gpuvm preset
 * (`gpuvm presets import`, docs/presets.md).
 *
 * Contract:
 *  - Owns: the options of one gpgpusim.config (and the files it
 *    includes), each with the file and line it was given on, and the
 *    preset text made from them; it writes no file (the CLI writes the
 *    text through gpuvm/output_file.h).
 *  - May call: declarations only; src/config/gpgpusim_parse.c and
 *    src/config/gpgpusim_import.c open with the contracts of the code
 *    behind them.
 *  - Guarantees: the syntax is GPGPU-Sim's OptionParser::ParseFile
 *    (option_parser.cc): '#' to the end of a line is a comment; tokens are
 *    separated by white space; a token that opens with '"' runs to the
 *    token that ends with '"', across lines, its words joined by one
 *    space; tokens pair as "-option value"; "-config FILE" reads FILE there
 *    (a relative FILE from the including file's folder; GPGPU-Sim takes
 *    the working directory). An option given again replaces its earlier
 *    value, as in GPGPU-Sim. An option followed by another option or the
 *    end of the input has the empty value (a GPGPU-Sim flag). Refused,
 *    each naming file:line: a token where an option belongs that is not
 *    "-name"; an unterminated quote; "-config" without a file, a missing
 *    or unreadable file, includes nested deeper than 8; a value of a
 *    mapped option that is not a number in range (the option named); a
 *    value the base cannot take (the key and the option's file:line). The
 *    preset text sets every key a preset sets (it loads with
 *    require_every_key, as a shipped preset); each key taken from the file
 *    carries a comment naming the option(s), value(s) and file:line it came
 *    from; a comment block lists every option with no gpuvm counterpart and
 *    every key left at the base's value. Before it is returned the text is
 *    loaded back and every key compared with the configuration it was
 *    written from.
 */
#ifndef GPUVM_GPGPUSIM_IMPORT_H
#define GPUVM_GPGPUSIM_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"

struct gpuvm_gs_option {
	char *name;  /* "-gpgpu_n_clusters" */
	char *value; /* "80"; a quoted value without its quotes, words joined by ' ' */
	char *file;  /* the file it was given in */
	int line;    /* the line of its name */
	bool used;   /* read by a mapping (it has a counterpart) */
	const char *why; /* not used: why, when it has a counterpart (static text) */
};

struct gpuvm_gs_config {
	struct gpuvm_gs_option *opt;
	size_t n, cap;
	char *path; /* the top file */
};

/* Reads a gpgpusim.config; on failure err names file:line and gs holds
 * what was read before it (free it either way). */
int gpuvm_gs_parse_file(struct gpuvm_gs_config *gs, const char *path, struct gpuvm_error *err);

/* The same on text in memory (origin names it in messages; "-config"
 * includes are read relative to dir, NULL: the working directory). */
int gpuvm_gs_parse_text(struct gpuvm_gs_config *gs, const char *text, size_t len,
			const char *origin, const char *dir, struct gpuvm_error *err);

void gpuvm_gs_free(struct gpuvm_gs_config *gs);

/* The option of that name ("-gpgpu_n_mem"), NULL if not given. */
struct gpuvm_gs_option *gpuvm_gs_find(const struct gpuvm_gs_config *gs, const char *name);

/* The shipped preset an import starts from when none is named: the one
 * whose compute capability is nearest the file's, then whose SM count is
 * nearest. NULL when there is none. */
const char *gpuvm_gs_default_base(const struct gpuvm_gs_config *gs);

struct gpuvm_gs_result {
	char *ini;      /* the preset text (malloc'd) */
	char *notes;    /* the unmapped options and the keys at the base's value, one a line */
	char base[64];  /* the base preset used */
	size_t n_imported, n_unmapped, n_base_keys;
};

/* Maps gs onto base (a shipped preset name or a preset file; NULL: the
 * default above) and writes the preset text. name is the preset's file
 * name shown in its header ("qv100.ini"). On failure err names the
 * option's file:line or the key that does not fit. */
int gpuvm_gs_import(struct gpuvm_gs_config *gs, const char *base, const char *name,
		    struct gpuvm_gs_result *out, struct gpuvm_error *err);

void gpuvm_gs_result_free(struct gpuvm_gs_result *r);

#endif
