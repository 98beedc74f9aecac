/* bignum.c - arbitrary-precision integers in base 10000: factorials, powers, Fibonacci. */
#include "common.h"

#define BIG_LIMBS 400
#define BIG_BASE 10000

typedef struct {
	int n;                /* limbs in use */
	int limb[BIG_LIMBS];  /* least significant first */
} big_t;

static void big_set(big_t *b, int v)
{
	b->n = 0;
	do {
		b->limb[b->n++] = v % BIG_BASE;
		v /= BIG_BASE;
	} while (v > 0);
}

static void big_mul_small(big_t *b, int m)
{
	long carry = 0;
	int i;

	for (i = 0; i < b->n; i++) {
		long t = (long)b->limb[i] * m + carry;
		b->limb[i] = (int)(t % BIG_BASE);
		carry = t / BIG_BASE;
	}
	while (carry > 0 && b->n < BIG_LIMBS) {
		b->limb[b->n++] = (int)(carry % BIG_BASE);
		carry /= BIG_BASE;
	}
}

static void big_add(big_t *r, const big_t *a, const big_t *b)
{
	int i, carry = 0, n = a->n > b->n ? a->n : b->n;

	for (i = 0; i < n; i++) {
		int t = carry;
		if (i < a->n)
			t += a->limb[i];
		if (i < b->n)
			t += b->limb[i];
		r->limb[i] = t % BIG_BASE;
		carry = t / BIG_BASE;
	}
	r->n = n;
	if (carry && r->n < BIG_LIMBS)
		r->limb[r->n++] = carry;
}

static int big_digits(const big_t *b)
{
	int top = b->limb[b->n - 1], d = 0;

	while (top > 0) {
		d++;
		top /= 10;
	}
	return d + 4 * (b->n - 1);
}

static int big_digit_sum(const big_t *b)
{
	int i, s = 0, v;

	for (i = 0; i < b->n; i++)
		for (v = b->limb[i]; v > 0; v /= 10)
			s += v % 10;
	return s;
}

/* Print the first 40 digits, then the digit count. */
static void big_print(const char *label, const big_t *b)
{
	char buf[BIG_LIMBS * 4 + 8];
	int i, len;

	len = sprintf(buf, "%d", b->limb[b->n - 1]);
	for (i = b->n - 2; i >= 0; i--)
		len += sprintf(buf + len, "%04d", b->limb[i]);
	printf("%-10s %.40s%s (%d digits, digit sum %d)\n", label, buf, len > 40 ? "..." : "",
	       big_digits(b), big_digit_sum(b));
}

checksum_t bignum_section(void)
{
	static big_t a, b, c;
	checksum_t sum = 0;
	int i;

	big_set(&a, 1);
	for (i = 2; i <= 450; i++)
		big_mul_small(&a, i);
	big_print("450!", &a);
	sum = fold(sum, (unsigned long)big_digit_sum(&a));

	big_set(&a, 1);
	for (i = 0; i < 1000; i++)
		big_mul_small(&a, 3);
	big_print("3^1000", &a);
	sum = fold(sum, (unsigned long)big_digit_sum(&a));

	big_set(&a, 0);
	big_set(&b, 1);
	for (i = 2; i <= 4000; i++) {
		big_add(&c, &a, &b);
		a = b;
		b = c;
	}
	big_print("fib(4000)", &b);
	sum = fold(sum, (unsigned long)big_digits(&b));
	return sum;
}
