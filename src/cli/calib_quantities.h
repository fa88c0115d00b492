/* The registry of the quantities gpuvm calibrate measures: every name a
 * row of its table can carry, in one list (calib_quantities.c).
 *
 * Owns: nothing (a static table). May call: gpuvm_suggest. Guarantees:
 * calib_add_row (calib_rows.c) refuses a name that is not listed, or one
 * listed with the other kind (curve or compared), in every build, so the
 * list cannot drift from the code that makes the rows; a published table
 * is checked against the list before any run (pub_check_rows). */
#ifndef GPUVM_CLI_CALIB_QUANTITIES_H
#define GPUVM_CLI_CALIB_QUANTITIES_H

#include <stdbool.h>

struct calib_quantity {
	const char *name;
	/* a curve (K_CURVE: drawn, never compared with a published
	 * value), else a quantity a table row may publish */
	bool curve;
};

/* The registry's entry of name, or NULL. */
const struct calib_quantity *calib_quantity_find(const char *name);
/* The compared quantity closest to a mistyped name (gpuvm_suggest), or
 * NULL when none is close. */
const char *calib_quantity_near(const char *name);

#endif
