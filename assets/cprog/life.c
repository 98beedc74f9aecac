/* life.c - Conway's game of life on a small torus, seeded from the generator. */
#include "common.h"

#define LIFE_W 48
#define LIFE_H 16

static int life_neighbours(char g[LIFE_H][LIFE_W], int y, int x)
{
	int dy, dx, n = 0;

	for (dy = -1; dy <= 1; dy++)
		for (dx = -1; dx <= 1; dx++) {
			if (dy == 0 && dx == 0)
				continue;
			n += g[(y + dy + LIFE_H) % LIFE_H][(x + dx + LIFE_W) % LIFE_W];
		}
	return n;
}

static int life_step(char g[LIFE_H][LIFE_W])
{
	static char next[LIFE_H][LIFE_W];
	int y, x, alive = 0;

	for (y = 0; y < LIFE_H; y++)
		for (x = 0; x < LIFE_W; x++) {
			int n = life_neighbours(g, y, x);
			next[y][x] = (char)(n == 3 || (n == 2 && g[y][x]));
			alive += next[y][x];
		}
	memcpy(g, next, sizeof next);
	return alive;
}

checksum_t life_section(void)
{
	static char grid[LIFE_H][LIFE_W];
	checksum_t sum = 0;
	int y, x, gen, alive = 0;

	rng_seed(1982);
	for (y = 0; y < LIFE_H; y++)
		for (x = 0; x < LIFE_W; x++)
			grid[y][x] = (char)(rng_below(100) < 35);
	for (gen = 1; gen <= 200; gen++) {
		alive = life_step(grid);
		if (gen % 40 == 0)
			printf("life generation %3d: %3d alive\n", gen, alive);
		sum = fold(sum, (unsigned long)alive);
	}
	for (y = 0; y < LIFE_H; y++) {
		for (x = 0; x < LIFE_W; x++)
			putchar(grid[y][x] ? '#' : '.');
		putchar('\n');
	}
	return sum;
}
