/* rng.c - a small deterministic pseudo-random generator (xorshift) and a checksum. */
#include "common.h"

static unsigned long rng_state = 88172645463325252UL;

void rng_seed(unsigned long seed)
{
	rng_state = seed ? seed : 88172645463325252UL;
}

unsigned long rng_next(void)
{
	unsigned long x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

/* A value in [0, n), n > 0. The small bias of the modulus does not matter here. */
int rng_below(int n)
{
	return (int)(rng_next() % (unsigned long)n);
}

/* Fold a value into a running checksum (FNV-1a over its bytes). */
checksum_t fold(checksum_t sum, unsigned long value)
{
	int i;

	if (sum == 0)
		sum = 14695981039346656037UL;
	for (i = 0; i < 8; i++) {
		sum ^= (value >> (8 * i)) & 0xff;
		sum *= 1099511628211UL;
	}
	return sum;
}
