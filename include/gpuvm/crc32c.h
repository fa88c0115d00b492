/* CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the
 * checksum of iSCSI (RFC 3720 appendix B.4) and ext4 metadata: detects
 * every 1-, 2- and 3-bit error and every burst up to 32 bits in the
 * lengths a native trace frame has. Software, slicing by 8 (Intel's
 * "slicing-by-8", Kounavis & Berry 2005): about 1-2 GB/s, no CPU feature
 * needed. Pure function; the tables are built once (thread-safe). */
#ifndef GPUVM_CRC32C_H
#define GPUVM_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc of p[0..n) continuing from crc (0 to start). */
uint32_t gpuvm_crc32c(uint32_t crc, const void *p, size_t n);

#endif
