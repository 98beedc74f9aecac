/* main.c - run every section and print a checksum of their results. */
#include "common.h"

int main(void)
{
	static const struct {
		const char *name;
		checksum_t (*run)(void);
	} sections[] = {
		{ "sort", sort_section },
		{ "bignum", bignum_section },
		{ "life", life_section },
		{ "queens", queens_section },
		{ "expr", expr_section },
		{ "text", text_section },
		{ "matrix", matrix_section },
	};
	checksum_t total = 0, s;
	size_t i;

	printf("timeshare test program: %d sections\n", (int)(sizeof sections / sizeof sections[0]));
	for (i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		printf("== %s\n", sections[i].name);
		s = sections[i].run();
		printf("== %s checksum %016lx\n", sections[i].name, s);
		total = fold(total, s);
	}
	printf("total checksum %016lx\n", total);
	return 0;
}
