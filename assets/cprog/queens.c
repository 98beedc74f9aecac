/* queens.c - count the solutions of the n-queens problem by backtracking. */
#include "common.h"

static int queens_place(int n, int row, unsigned cols, unsigned diag1, unsigned diag2)
{
	int count = 0, col;

	if (row == n)
		return 1;
	for (col = 0; col < n; col++) {
		unsigned c = 1u << col, d1 = 1u << (row + col), d2 = 1u << (row - col + n - 1);
		if ((cols & c) || (diag1 & d1) || (diag2 & d2))
			continue;
		count += queens_place(n, row + 1, cols | c, diag1 | d1, diag2 | d2);
	}
	return count;
}

checksum_t queens_section(void)
{
	checksum_t sum = 0;
	int n, solutions;

	for (n = 1; n <= 10; n++) {
		solutions = queens_place(n, 0, 0, 0, 0);
		printf("queens %2d: %5d solutions\n", n, solutions);
		sum = fold(sum, (unsigned long)solutions);
	}
	return sum;
}
