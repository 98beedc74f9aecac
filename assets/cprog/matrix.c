/* matrix.c - integer matrices modulo a prime: products, powers and a determinant by
 * Gaussian elimination with modular inverses. */
#include "common.h"

#define MAT_N 24
#define MAT_P 1000003L

typedef long matrix_t[MAT_N][MAT_N];

static void mat_mul(matrix_t r, matrix_t a, matrix_t b)
{
	static matrix_t t;
	int i, j, k;

	for (i = 0; i < MAT_N; i++)
		for (j = 0; j < MAT_N; j++) {
			long s = 0;
			for (k = 0; k < MAT_N; k++)
				s = (s + a[i][k] * b[k][j]) % MAT_P;
			t[i][j] = s;
		}
	memcpy(r, t, sizeof t);
}

static long mod_pow(long b, long e)
{
	long r = 1;

	b %= MAT_P;
	while (e > 0) {
		if (e & 1)
			r = r * b % MAT_P;
		b = b * b % MAT_P;
		e >>= 1;
	}
	return r;
}

static long mat_det(matrix_t m)
{
	static matrix_t a;
	long det = 1, inv, f, t;
	int i, j, k, pivot;

	memcpy(a, m, sizeof a);
	for (i = 0; i < MAT_N; i++) {
		for (pivot = i; pivot < MAT_N && a[pivot][i] == 0; pivot++)
			;
		if (pivot == MAT_N)
			return 0;
		if (pivot != i) {
			for (k = 0; k < MAT_N; k++) {
				t = a[i][k];
				a[i][k] = a[pivot][k];
				a[pivot][k] = t;
			}
			det = (MAT_P - det) % MAT_P;
		}
		det = det * a[i][i] % MAT_P;
		inv = mod_pow(a[i][i], MAT_P - 2);
		for (j = i + 1; j < MAT_N; j++) {
			f = a[j][i] * inv % MAT_P;
			for (k = i; k < MAT_N; k++)
				a[j][k] = ((a[j][k] - f * a[i][k]) % MAT_P + MAT_P) % MAT_P;
		}
	}
	return det;
}

checksum_t matrix_section(void)
{
	static matrix_t m, p;
	checksum_t sum = 0;
	int i, j, e;

	rng_seed(1976);
	for (i = 0; i < MAT_N; i++)
		for (j = 0; j < MAT_N; j++)
			m[i][j] = rng_below(1000);
	memcpy(p, m, sizeof p);
	for (e = 2; e <= 8; e++) {
		mat_mul(p, p, m);
		if (e % 2 == 0)
			printf("matrix m^%d: trace %ld, corner %ld, det %ld\n", e,
			       (p[0][0] + p[MAT_N - 1][MAT_N - 1]) % MAT_P, p[0][MAT_N - 1],
			       mat_det(p));
		sum = fold(sum, (unsigned long)p[MAT_N / 2][MAT_N / 2]);
	}
	printf("matrix det(m)^8 = %ld (must equal det(m^8) above)\n", mod_pow(mat_det(m), 8));
	return sum;
}
