/* SASS opcodes as the Accel-Sim trace reader sees them: which memory space,
 * cache operator, functional-unit class and access kind an opcode string
 * names, and which scoreboard register an operand names.
 *
 * Owns: nothing (pure functions over the opcode text; the tables are
 * constant). May call: nothing but the C library. Guarantees: every
 * function takes an opcode (or operand) of n bytes, not necessarily
 * NUL-terminated, and answers for any bytes (unknown opcodes are ALU
 * instructions and loads, unknown registers no dependency). */
#ifndef GPUVM_TRACE_SASS_OPCODE_H
#define GPUVM_TRACE_SASS_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/stream.h"

/* What a memory opcode does to its lines. */
enum sass_access { SASS_LOAD, SASS_STORE, SASS_ATOMIC };

/* The memory space an opcode names (generic ones are GLOBAL here). */
enum gpuvm_mem_space sass_opcode_space(const char *op, size_t n);
/* The L1 policy a global access's qualifiers ask for. */
enum gpuvm_cache_op sass_opcode_cache_op(const char *op, size_t n);
/* The functional-unit class of a non-memory opcode. */
enum gpuvm_op_class sass_op_class_of(const char *op, size_t n);
/* BAR.SYNC and BAR.RED wait for the CTA; BAR.ARV only arrives. */
bool sass_is_barrier(const char *op, size_t n);
/* Register name -> scoreboard id (gpuvm/stream.h), GPUVM_REG_NONE for
 * constants (RZ, PT, URZ, UPT) and anything else. */
uint16_t sass_reg_id(const char *s, size_t n);
/* ATOM/RED/SUATOM/SURED are atomics, ST/SUST stores, the rest loads. */
enum sass_access sass_classify(const char *op, size_t n);
/* LDG/STG/LD/ST and global atomics and reductions: always a global (or
 * generic) access with a width. */
bool sass_is_global_memory_opcode(const char *op, size_t n);

#endif
