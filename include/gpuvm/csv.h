/* CSV text every writer shares (sweep, stats, validate, --stats-csv), so
 * that each loads the same way into pandas. */
#ifndef GPUVM_CSV_H
#define GPUVM_CSV_H

#include <stddef.h>
#include <stdio.h>

/* One field, quoted (RFC 4180, quotes doubled) when it holds a comma,
 * quote or line break, or starts or ends with a space. */
void gpuvm_csv_field(FILE *f, const char *s);

/* The shortest text that reads back as exactly v: integers plainly
 * ("%.0f" below 1e15), else %.15g to %.17g; "" for NaN or infinity (an
 * empty cell, NaN in pandas). */
void gpuvm_csv_number(double v, char *buf, size_t len);

#endif
