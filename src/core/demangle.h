/* Kernel names as a person reads them. Traces record the names the
 * compiler emitted (Itanium C++ ABI: "_Z15find_key_kernelPK5knodei"); the
 * text report shows them demangled ("find_key_kernel(knode const*, int)"),
 * the JSON keeps "name" as recorded and adds "name_demangled". */
#ifndef GPUVM_REPORT_DEMANGLE_H
#define GPUVM_REPORT_DEMANGLE_H

/* A malloc'd copy of name demangled by libiberty (the GNU demangler that
 * binutils and GDB use), with parameter types; a plain copy when name is
 * not a mangled C++ name (a C kernel "vecAdd", a synthetic workload's
 * "triad") or does not demangle. NULL only when out of memory. */
char *gpuvm_demangle(const char *name);

#endif
