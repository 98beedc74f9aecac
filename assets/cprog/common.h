/* common.h - shared declarations of the timeshare test program.
 *
 * Written for timeshare (MIT licence). The program is deliberately ordinary C: sorting,
 * big numbers, a cellular automaton, a recursive-descent parser, a hash table and
 * matrices. Its output is fully deterministic, so that two runs on the same machine
 * produce the same bytes; the exerciser compares them byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long checksum_t;

/* rng.c */
void rng_seed(unsigned long seed);
unsigned long rng_next(void);
int rng_below(int n);
checksum_t fold(checksum_t sum, unsigned long value);

/* sort.c */
checksum_t sort_section(void);

/* bignum.c */
checksum_t bignum_section(void);

/* life.c */
checksum_t life_section(void);

/* queens.c */
checksum_t queens_section(void);

/* expr.c */
checksum_t expr_section(void);

/* text.c */
checksum_t text_section(void);

/* matrix.c */
checksum_t matrix_section(void);
