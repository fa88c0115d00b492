/* Where each setting of a configuration came from, shared by its defaults
 * (config.c), preset loading (config_load.c) and --set: every key set
 * records origin, line and a sequence number in cfg->set_at[key id], which
 * config_finalize.c reads to point a message at the right file and line.
 * Not a public header. */
#ifndef GPUVM_CONFIG_ORIGIN_H
#define GPUVM_CONFIG_ORIGIN_H

#include <stddef.h>

#include "gpuvm/config.h"

/* snprintf "%s" of src (NULL: empty) into dst of cap bytes. */
void cfg_copy_str(char *dst, size_t cap, const char *src);
/* Name of a config: the stem of the file ("presets/p100.ini" -> "p100"). */
void cfg_set_name_from(struct gpuvm_config *cfg, const char *path);
/* Key k was set now, at origin:line. */
void cfg_record_origin(struct gpuvm_config *cfg, int k, const char *origin, int line);

#endif
