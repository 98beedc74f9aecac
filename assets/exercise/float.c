/* float.c - the exerciser's floating-point job (seed 004's "moderate floating point
 * process"). Written for timeshare (MIT licence).
 *
 * Double-precision work of several kinds: a planetary orbit integrated with fourth-order
 * Runge-Kutta, numerical integration by Simpson's rule, series for pi and e, Newton's
 * method, and a small linear system solved by Gaussian elimination. Every result is
 * printed with 12 significant digits: on one machine and one compiler the output is the
 * same bytes every time, which is what the exerciser checks.
 */
#include <math.h>
#include <stdio.h>

static void orbit_derivs(const double s[4], double d[4])
{
	double r2 = s[0] * s[0] + s[1] * s[1];
	double r3 = r2 * sqrt(r2);

	d[0] = s[2];
	d[1] = s[3];
	d[2] = -s[0] / r3;
	d[3] = -s[1] / r3;
}

static void rk4_step(double s[4], double h)
{
	double k1[4], k2[4], k3[4], k4[4], t[4];
	int i;

	orbit_derivs(s, k1);
	for (i = 0; i < 4; i++)
		t[i] = s[i] + h / 2 * k1[i];
	orbit_derivs(t, k2);
	for (i = 0; i < 4; i++)
		t[i] = s[i] + h / 2 * k2[i];
	orbit_derivs(t, k3);
	for (i = 0; i < 4; i++)
		t[i] = s[i] + h * k3[i];
	orbit_derivs(t, k4);
	for (i = 0; i < 4; i++)
		s[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static void orbit(void)
{
	double s[4] = { 1.0, 0.0, 0.0, 1.2 };
	double h = 0.0005, energy0, energy;
	long step;

	energy0 = 0.5 * (s[2] * s[2] + s[3] * s[3]) - 1.0 / sqrt(s[0] * s[0] + s[1] * s[1]);
	for (step = 1; step <= 800000; step++) {
		rk4_step(s, h);
		if (step % 160000 == 0) {
			energy = 0.5 * (s[2] * s[2] + s[3] * s[3]) -
				 1.0 / sqrt(s[0] * s[0] + s[1] * s[1]);
			printf("orbit t=%6.1f x=%.12g y=%.12g energy drift=%.6e\n", step * h, s[0],
			       s[1], energy - energy0);
		}
	}
}

static double simpson(double (*f)(double), double a, double b, int n)
{
	double h = (b - a) / n, sum = f(a) + f(b);
	int i;

	for (i = 1; i < n; i++)
		sum += f(a + i * h) * (i % 2 ? 4 : 2);
	return sum * h / 3;
}

static double gauss(double x)
{
	return exp(-x * x);
}

static double wiggle(double x)
{
	return sin(x) * sin(x) / (1.0 + x * x);
}

static void integrals(void)
{
	int n;

	for (n = 1000; n <= 1000000; n *= 10)
		printf("simpson n=%7d  int exp(-x^2) [-6,6] = %.12g  int sin^2/(1+x^2) [0,50] = %.12g\n",
		       n, simpson(gauss, -6, 6, n), simpson(wiggle, 0, 50, n));
	printf("sqrt(pi) = %.12g\n", sqrt(acos(-1.0)));
}

static void series(void)
{
	double pi = 0, e = 0, term = 1;
	long k;

	for (k = 0; k < 2000000; k++)
		pi += (k % 2 ? -4.0 : 4.0) / (2 * k + 1);
	for (k = 1; k < 30; k++) {
		e += term;
		term /= k;
	}
	printf("leibniz pi (2e6 terms) = %.12g\n", pi);
	printf("series e = %.12g\n", e);
}

static void newton(void)
{
	double x;
	int i, n;

	for (n = 2; n <= 7; n++) {
		x = 1.0;
		for (i = 0; i < 60; i++)
			x -= (pow(x, n) - 10.0) / (n * pow(x, n - 1));
		printf("newton 10^(1/%d) = %.12g\n", n, x);
	}
}

static void linear_system(void)
{
	enum { N = 60 };
	static double a[N][N + 1];
	double x[N], f, worst = 0;
	int i, j, k, p;

	/* A Hilbert-like but well-conditioned system whose solution is x[i] = i + 1. */
	for (i = 0; i < N; i++) {
		a[i][N] = 0;
		for (j = 0; j < N; j++) {
			a[i][j] = 1.0 / (i + j + 1) + (i == j ? N : 0);
			a[i][N] += a[i][j] * (j + 1);
		}
	}
	for (i = 0; i < N; i++) {
		p = i;
		for (k = i + 1; k < N; k++)
			if (fabs(a[k][i]) > fabs(a[p][i]))
				p = k;
		for (j = 0; j <= N; j++) {
			f = a[i][j];
			a[i][j] = a[p][j];
			a[p][j] = f;
		}
		for (k = i + 1; k < N; k++) {
			f = a[k][i] / a[i][i];
			for (j = i; j <= N; j++)
				a[k][j] -= f * a[i][j];
		}
	}
	for (i = N - 1; i >= 0; i--) {
		x[i] = a[i][N];
		for (j = i + 1; j < N; j++)
			x[i] -= a[i][j] * x[j];
		x[i] /= a[i][i];
		if (fabs(x[i] - (i + 1)) > worst)
			worst = fabs(x[i] - (i + 1));
	}
	printf("linear system %d unknowns: x[0]=%.12g x[%d]=%.12g worst error %.3e\n", N, x[0],
	       N - 1, x[N - 1], worst);
}

int main(void)
{
	orbit();
	integrals();
	series();
	newton();
	linear_system();
	return 0;
}
