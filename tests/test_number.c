/* The number parser family (gpuvm/number.h): numbers past their type or
 * range are refused, never wrapped (sscanf's %u read 4294967299 as 3,
 * strtoul "-1" as 2^64-1), and the read forms name input, line and field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpuvm/number.h"
#include "gpuvm/units.h"

static void test_u64_range_and_overflow(void **state)
{
	(void)state;
	uint64_t v = 7;
	const char *e;
	assert_int_equal(gpuvm_scan_u64("4294967295,", &e, 0, UINT32_MAX, &v), GPUVM_NUM_OK);
	assert_int_equal(v, 4294967295u);
	assert_int_equal(*e, ',');
	v = 7;
	assert_int_equal(gpuvm_scan_u64("4294967299,1", &e, 0, UINT32_MAX, &v), GPUVM_NUM_RANGE);
	assert_int_equal(v, 7); /* untouched: not 3 */
	assert_int_equal(*e, ','); /* past the digits even when refused */
	assert_int_equal(gpuvm_scan_u64("18446744073709551615", NULL, 0, UINT64_MAX, &v),
			 GPUVM_NUM_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(gpuvm_scan_u64("18446744073709551616", NULL, 0, UINT64_MAX, &v),
			 GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_scan_u64("99999999999999999999999", NULL, 0, UINT64_MAX, &v),
			 GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_scan_u64("0", NULL, 1, 10, &v), GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_scan_u64("-1", NULL, 0, UINT64_MAX, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_scan_u64("+1", NULL, 0, UINT64_MAX, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_scan_u64(" 1", NULL, 0, UINT64_MAX, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_u64("12x", 3, 0, 100, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_u64("12 ", 2, 0, 100, &v), GPUVM_NUM_OK);
	assert_int_equal(v, 12);
}

static void test_i64(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(gpuvm_num_i64("-9223372036854775808", 20, INT64_MIN, INT64_MAX, &v),
			 GPUVM_NUM_OK);
	assert_true(v == INT64_MIN);
	assert_int_equal(gpuvm_num_i64("-9223372036854775809", 20, INT64_MIN, INT64_MAX, &v),
			 GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_num_i64("9223372036854775808", 19, INT64_MIN, INT64_MAX, &v),
			 GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_num_i64("-5", 2, 0, 10, &v), GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_num_i64("-", 1, INT64_MIN, INT64_MAX, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_i64("-12", 3, -100, 100, &v), GPUVM_NUM_OK);
	assert_int_equal(v, -12);
}

static void test_hex(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(gpuvm_num_hex("0x7fb0fc430e00", 14, &v), GPUVM_NUM_OK);
	assert_true(v == 0x7fb0fc430e00ull);
	assert_int_equal(gpuvm_num_hex("ffffffff", 8, &v), GPUVM_NUM_OK);
	assert_true(v == 0xffffffffu);
	assert_int_equal(gpuvm_num_hex("0x7fb0fcZ30e00", 14, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_hex("0x", 2, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_hex("", 0, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_num_hex("10000000000000000", 17, &v), GPUVM_NUM_RANGE);
}

static void test_double(void **state)
{
	(void)state;
	double v;
	const char *e;
	assert_int_equal(gpuvm_scan_double("1.25e2x", &e, 0, 1000, &v), GPUVM_NUM_OK);
	assert_true(v == 125.0);
	assert_int_equal(*e, 'x');
	assert_int_equal(gpuvm_scan_double("inf", NULL, -1e300, 1e300, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_scan_double("nan", NULL, -1e300, 1e300, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_scan_double(" 1", NULL, -1e300, 1e300, &v), GPUVM_NUM_NONE);
	assert_int_equal(gpuvm_scan_double("1e999", NULL, -1e300, 1e300, &v), GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_scan_double("101", NULL, 0, 100, &v), GPUVM_NUM_RANGE);
	assert_int_equal(gpuvm_scan_double(".5", NULL, 0, 1, &v), GPUVM_NUM_OK);
	assert_true(v == 0.5);
}

static void test_read_names_input_line_and_field(void **state)
{
	(void)state;
	struct gpuvm_error err;
	const char *p = "4294967299,1,1)";
	uint32_t v;
	assert_int_equal(gpuvm_read_u32(&err, "k.traceg", 3, "grid dim", &p, 0, UINT32_MAX, &v),
			 -1);
	assert_string_equal(err.msg, "k.traceg:3: grid dim: 4294967299 is out of range "
				     "(0 to 4294967295)");
	p = "x,1";
	assert_int_equal(gpuvm_read_u32(&err, "argument", 0, "--oversub", &p, 1, 100, &v), -1);
	assert_string_equal(err.msg, "argument: --oversub: expected a whole number (1 to 100), "
				     "got 'x'");
	p = "42)";
	assert_int_equal(gpuvm_read_u32(&err, "f", 1, "n", &p, 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_string_equal(p, ")");
}

/* The printers' round-trip test keeps strtod's own reading (inf too). */
static void test_reads_back(void **state)
{
	(void)state;
	assert_true(gpuvm_num_reads_back("0.1", 0.1));
	assert_true(gpuvm_num_reads_back("0.10000000000000001", 0.1));
	assert_false(gpuvm_num_reads_back("0.1000000000000001", 0.1));
	assert_true(gpuvm_num_reads_back("inf", HUGE_VAL));
}

/* The older entry points (gpuvm/units.h) are on the family and keep their
 * syntax: decimal or 0x hex, sizes with binary suffixes, finite reals. */
static void test_units_on_the_family(void **state)
{
	(void)state;
	uint64_t v;
	double d;
	assert_int_equal(gpuvm_parse_u64("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(gpuvm_parse_u64("0x10", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(gpuvm_parse_u64("0x", &v), -1);
	assert_int_equal(gpuvm_parse_u64("-1", &v), -1);
	assert_int_equal(gpuvm_parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(gpuvm_parse_size("4GiB", &v), 0);
	assert_true(v == 4ull << 30);
	assert_int_equal(gpuvm_parse_size("16777216TiB", &v), -1);
	assert_int_equal(gpuvm_parse_size("4 GiB", &v), -1);
	assert_int_equal(gpuvm_parse_double("1.5", &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(gpuvm_parse_double("1.5x", &d), -1);
	assert_int_equal(gpuvm_parse_double("inf", &d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_range_and_overflow),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_read_names_input_line_and_field),
		cmocka_unit_test(test_reads_back),
		cmocka_unit_test(test_units_on_the_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
