/* Zipf sampling by rejection-inversion (Hörmann and Derflinger 1996),
 * following Apache Commons RNG's RejectionInversionZipfSampler
 * (commons-rng-sampling, sampling/distribution/
 * RejectionInversionZipfSampler.java): the same helper functions and
 * acceptance test. */
#include <math.h>

#include "bigdata/gen.h"

/* log1p(x)/x, and its limit 1 at 0 */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

/* expm1(x)/x, and its limit 1 at 0 */
static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

static double h_integral(const struct gen_zipf *z, double x)
{
	double lx = log(x);
	return helper2((1 - z->s) * lx) * lx;
}

static double h(const struct gen_zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static double h_integral_inverse(const struct gen_zipf *z, double x)
{
	double t = x * (1 - z->s);
	if (t < -1)
		t = -1; /* rounding near the upper bound */
	return exp(helper1(t) * x);
}

void gen_zipf_init(struct gen_zipf *z, uint64_t n, double s)
{
	z->s = s;
	z->n = (double)n;
	z->h_x1 = h_integral(z, 1.5) - 1;
	z->h_n = h_integral(z, z->n + 0.5);
	z->s_val = 2 - h_integral_inverse(z, h_integral(z, 2.5) - h(z, 2));
}

uint64_t gen_zipf_sample(const struct gen_zipf *z, struct gen_rng *r)
{
	for (;;) {
		double u = z->h_n + gen_unit(r) * (z->h_x1 - z->h_n);
		double x = h_integral_inverse(z, u);
		double k = floor(x + 0.5);
		if (k < 1)
			k = 1;
		else if (k > z->n)
			k = z->n;
		if (k - x <= z->s_val || u >= h_integral(z, k + 0.5) - h(z, k))
			return (uint64_t)k;
	}
}
