/* SASS opcode classification for the Accel-Sim reader (sass_opcode.h).
 * Opcode lists follow Accel-Sim's ISA_Def tables (gpu-simulator/ISA_Def/
 * *_opcode.h: the unit each opcode is issued to) and the PTX ISA's cache
 * operators as SASS spells them. */
#include <string.h>

#include "trace/sass_opcode.h"
#include "gpuvm/number.h"

/* Whether the name p (NUL-terminated) begins s[0..n): compared a byte at a
 * time, since most names differ in their first byte (a trace's every line
 * asks several tables; a strlen of each name first was 6 % of reading a
 * large Accel-Sim trace) */
static bool prefix(const char *s, size_t n, const char *p)
{
	size_t i = 0;
	for (; p[i]; i++)
		if (i == n || s[i] != p[i])
			return false;
	return true;
}

/* Whether s[0..n) is the name p (p is read no further than its NUL) */
static bool equal(const char *s, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (!p[i] || s[i] != p[i])
			return false;
	return p[n] == 0;
}

/* The opcode without its qualifiers ("LDG" of "LDG.E.64"), and whether it
 * is one of names[0..n). */
static size_t opcode_base_len(const char *op, size_t n)
{
	const char *dot = memchr(op, '.', n);
	return dot ? (size_t)(dot - op) : n;
}

static bool equal_any(const char *op, size_t b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (equal(op, b, names[i]))
			return true;
	return false;
}

#define EQUAL_ANY(op, b, names) equal_any(op, b, names, sizeof names / sizeof names[0])

/* The memory space an opcode names (generic ones are GLOBAL here). */
enum gpuvm_mem_space sass_opcode_space(const char *op, size_t n)
{
	size_t b = opcode_base_len(op, n);
	static const char *const shared[] = {"LDS", "STS", "ATOMS", "LDSM", "STSM"};
	static const char *const local[] = {"LDL", "STL"};
	if (EQUAL_ANY(op, b, shared))
		return GPUVM_SPACE_SHARED;
	if (EQUAL_ANY(op, b, local))
		return GPUVM_SPACE_LOCAL;
	return GPUVM_SPACE_GLOBAL;
}

/* Whether a qualifier ".Q" appears among the opcode's qualifiers. */
static bool has_qualifier(const char *op, size_t n, const char *q)
{
	for (size_t i = opcode_base_len(op, n); i < n; i++) {
		if (op[i] != '.')
			continue;
		size_t k = 0; /* q's bytes matched after the dot */
		while (q[k] && i + 1 + k < n && op[i + 1 + k] == q[k])
			k++;
		if (!q[k] && (i + 1 + k == n || op[i + 1 + k] == '.'))
			return true;
	}
	return false;
}

/* The L1 policy a global access's qualifiers ask for. SASS spells the
 * PTX cache operators .CG/.CS/.CV (and .LU/.EF as streaming); volatile
 * and system-coherent accesses are .STRONG.GPU/.STRONG.SYS from Ampere
 * on. A bare .SYS is Volta/Turing's spelling of the plain default load
 * (LDG.E.SYS), so it keeps the default; .CONSTANT is __ldg's read-only
 * path, cached in L1 even on parts that do not cache globals there. */
enum gpuvm_cache_op sass_opcode_cache_op(const char *op, size_t n)
{
	if (has_qualifier(op, n, "CV") || has_qualifier(op, n, "STRONG") ||
	    has_qualifier(op, n, "VOLATILE") || has_qualifier(op, n, "MMIO"))
		return GPUVM_CACHE_VOLATILE;
	if (has_qualifier(op, n, "CG"))
		return GPUVM_CACHE_GLOBAL;
	if (has_qualifier(op, n, "CS") || has_qualifier(op, n, "LU") || has_qualifier(op, n, "EF"))
		return GPUVM_CACHE_STREAMING;
	if (has_qualifier(op, n, "CONSTANT") || has_qualifier(op, n, "CA"))
		return GPUVM_CACHE_ALL;
	return GPUVM_CACHE_DEFAULT;
}

/* The functional-unit class of a non-memory opcode (the unit that
 * Accel-Sim's ISA_Def tables assign it: SP, INT, SFU, DP, tensor, branch). */
enum gpuvm_op_class sass_op_class_of(const char *op, size_t n)
{
	size_t b = opcode_base_len(op, n);
	static const char *const fma[] = {"FFMA", "FMUL", "FADD", "FFMA32I", "FMUL32I", "FADD32I",
					  "HFMA2", "HMUL2", "HADD2", "HFMA2MMA", "FSWZADD"};
	static const char *const imad[] = {"IMAD", "IMUL", "IMADSP", "IMAD32I", "IMUL32I", "XMAD",
					   "IDP", "IDP4A"};
	static const char *const sfu[] = {"MUFU", "RRO"};
	static const char *const dp[] = {"DFMA", "DMUL", "DADD", "DSETP", "DMNMX", "DSET"};
	static const char *const tensor[] = {"HMMA", "IMMA", "BMMA", "DMMA", "HGMMA", "IGMMA",
					     "BGMMA", "QGMMA"};
	static const char *const branch[] = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT",
					     "BSSY", "BSYNC", "SSY", "SYNC", "PBK", "BRK", "CONT",
					     "PCNT", "WARPSYNC", "YIELD", "BPT", "KILL", "RTT",
					     "JCAL", "PRET", "PEXIT"};
	if (EQUAL_ANY(op, b, fma))
		return GPUVM_CLASS_FMA;
	if (EQUAL_ANY(op, b, imad))
		return GPUVM_CLASS_IMAD;
	if (EQUAL_ANY(op, b, sfu))
		return GPUVM_CLASS_SFU;
	if (EQUAL_ANY(op, b, dp))
		return GPUVM_CLASS_DP;
	if (EQUAL_ANY(op, b, tensor))
		return GPUVM_CLASS_TENSOR;
	if (EQUAL_ANY(op, b, branch))
		return GPUVM_CLASS_BRANCH;
	return GPUVM_CLASS_ALU;
}

/* BAR.SYNC and BAR.RED wait for the CTA; BAR.ARV only arrives. */
bool sass_is_barrier(const char *op, size_t n)
{
	return opcode_base_len(op, n) == 3 && !memcmp(op, "BAR", 3) && !has_qualifier(op, n, "ARV");
}

/* Register name -> scoreboard id (stream.h): R0..R254, P0..P6, UR0..UR62,
 * UP0..UP6, B0..B15; RZ, PT, URZ, UPT and anything else are no dependency. */
uint16_t sass_reg_id(const char *s, size_t n)
{
	uint32_t base, max;
	size_t k;
	if (n >= 3 && s[0] == 'U' && s[1] == 'R')
		base = 264, max = 63, k = 2;
	else if (n >= 3 && s[0] == 'U' && s[1] == 'P')
		base = 328, max = 7, k = 2;
	else if (n >= 2 && s[0] == 'R')
		base = 0, max = 254, k = 1;
	else if (n >= 2 && s[0] == 'P')
		base = 256, max = 7, k = 1;
	else if (n >= 2 && s[0] == 'B')
		base = 336, max = 15, k = 1;
	else
		return GPUVM_REG_NONE;
	uint64_t v;
	/* RZ, PT, URZ, UPT (no digits): constants, not registers */
	if (gpuvm_num_u64(s + k, n - k, 0, max, &v))
		return GPUVM_REG_NONE;
	return (uint16_t)(base + v);
}

enum sass_access sass_classify(const char *op, size_t n)
{
	size_t b = opcode_base_len(op, n);
	if (prefix(op, b, "ATOM") || prefix(op, b, "RED") || prefix(op, b, "SUATOM") ||
	    prefix(op, b, "SURED"))
		return SASS_ATOMIC;
	if (prefix(op, b, "ST") || prefix(op, b, "SUST"))
		return SASS_STORE;
	return SASS_LOAD;
}

/* Opcodes that always access global (or generic) memory with a width:
 * LDG/STG/LD/ST and global atomics and reductions. */
bool sass_is_global_memory_opcode(const char *op, size_t n)
{
	static const char *const mem[] = {"LDG", "STG", "LD", "ST", "ATOMG", "ATOM", "RED"};
	return EQUAL_ANY(op, opcode_base_len(op, n), mem);
}
