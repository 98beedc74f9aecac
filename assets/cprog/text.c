/* text.c - generate a text from syllables, count its words in a hash table, and print
 * the most frequent ones. */
#include "common.h"

#define TEXT_WORDS 20000
#define TABLE_SIZE 4096

struct entry {
	char word[24];
	int count;
	struct entry *next;
};

static struct entry *table[TABLE_SIZE];
static struct entry pool[TEXT_WORDS];
static int pool_used;

static unsigned hash_word(const char *w)
{
	unsigned h = 5381;

	while (*w)
		h = h * 33 + (unsigned char)*w++;
	return h % TABLE_SIZE;
}

static void count_word(const char *w)
{
	unsigned h = hash_word(w);
	struct entry *e;

	for (e = table[h]; e != NULL; e = e->next)
		if (strcmp(e->word, w) == 0) {
			e->count++;
			return;
		}
	e = &pool[pool_used++];
	snprintf(e->word, sizeof e->word, "%s", w);
	e->count = 1;
	e->next = table[h];
	table[h] = e;
}

/* Words of one to three syllables, with a skewed choice so that some words repeat. */
static void make_word(char *out)
{
	static const char *syllables[] = {
		"ta", "ri", "mo", "ken", "sa", "lu", "ve", "dor", "pi", "an", "el", "quo",
	};
	int n = 1 + rng_below(3), i, s;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		s = rng_below(12);
		if (s > 5 && rng_below(2))
			s -= 6;
		strcat(out, syllables[s]);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;

	if (x->count != y->count)
		return y->count - x->count;
	return strcmp(x->word, y->word);
}

checksum_t text_section(void)
{
	static struct entry *sorted[TEXT_WORDS];
	char word[24];
	checksum_t sum = 0;
	int i, n = 0, longest = 0;

	rng_seed(1975);
	for (i = 0; i < TEXT_WORDS; i++) {
		make_word(word);
		count_word(word);
		if ((int)strlen(word) > longest)
			longest = (int)strlen(word);
	}
	for (i = 0; i < TABLE_SIZE; i++) {
		struct entry *e;
		for (e = table[i]; e != NULL; e = e->next)
			sorted[n++] = e;
	}
	qsort(sorted, (size_t)n, sizeof sorted[0], by_count);
	printf("text %d words, %d distinct, longest %d letters\n", TEXT_WORDS, n, longest);
	for (i = 0; i < 12 && i < n; i++)
		printf("text %2d. %-10s %5d\n", i + 1, sorted[i]->word, sorted[i]->count);
	for (i = 0; i < n; i++)
		sum = fold(sum, (unsigned long)sorted[i]->count * hash_word(sorted[i]->word));
	return sum;
}
