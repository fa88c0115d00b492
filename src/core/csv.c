/* CSV fields and numbers: see gpuvm/csv.h. */
#include "gpuvm/csv.h"
#include "gpuvm/number.h"
#include "gpuvm/utf8.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void gpuvm_csv_field(FILE *f, const char *s)
{
	/* valid UTF-8 always (gpuvm/utf8.h): a path or name with stray bytes
	 * is written with U+FFFD in their place */
	if (!gpuvm_utf8_valid(s)) {
		char *fixed = gpuvm_utf8_repair(s);
		if (fixed) {
			gpuvm_csv_field(f, fixed);
			free(fixed);
			return;
		}
	}
	bool quote = strpbrk(s, ",\"\r\n") != NULL || (*s && (s[0] == ' ' || s[strlen(s) - 1] == ' '));
	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void gpuvm_csv_number(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		buf[0] = 0;
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (gpuvm_num_reads_back(buf, v))
			return;
	}
}
