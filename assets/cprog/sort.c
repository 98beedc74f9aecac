/* sort.c - four sorting algorithms on the same data; each result is verified. */
#include "common.h"

#define SORT_N 4000

static void insertion_sort(int *a, int n)
{
	int i, j, v;

	for (i = 1; i < n; i++) {
		v = a[i];
		for (j = i - 1; j >= 0 && a[j] > v; j--)
			a[j + 1] = a[j];
		a[j + 1] = v;
	}
}

static void quick_sort(int *a, int lo, int hi)
{
	int i, j, pivot, t;

	while (lo < hi) {
		pivot = a[(lo + hi) / 2];
		i = lo;
		j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		/* Recurse into the smaller half, loop on the larger one. */
		if (j - lo < hi - i) {
			quick_sort(a, lo, j);
			lo = i;
		} else {
			quick_sort(a, i, hi);
			hi = j;
		}
	}
}

static void sift_down(int *a, int start, int end)
{
	int root = start, child, t;

	while ((child = 2 * root + 1) <= end) {
		if (child + 1 <= end && a[child] < a[child + 1])
			child++;
		if (a[root] >= a[child])
			return;
		t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

static void heap_sort(int *a, int n)
{
	int start, end, t;

	for (start = (n - 2) / 2; start >= 0; start--)
		sift_down(a, start, n - 1);
	for (end = n - 1; end > 0; end--) {
		t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end - 1);
	}
}

static void merge_sort(int *a, int *tmp, int n)
{
	int mid = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, mid);
	merge_sort(a + mid, tmp, n - mid);
	j = mid;
	while (i < mid && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof(int));
}

static int is_sorted(const int *a, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}

checksum_t sort_section(void)
{
	static int data[SORT_N], work[SORT_N], tmp[SORT_N];
	const char *names[4] = { "insertion", "quick", "heap", "merge" };
	checksum_t sum = 0;
	int method, i;

	rng_seed(12345);
	for (i = 0; i < SORT_N; i++)
		data[i] = rng_below(100000);
	for (method = 0; method < 4; method++) {
		memcpy(work, data, sizeof data);
		switch (method) {
		case 0: insertion_sort(work, SORT_N); break;
		case 1: quick_sort(work, 0, SORT_N - 1); break;
		case 2: heap_sort(work, SORT_N); break;
		default: merge_sort(work, tmp, SORT_N); break;
		}
		for (i = 0; i < SORT_N; i++)
			sum = fold(sum, (unsigned long)work[i]);
		printf("sort %-9s n=%d sorted=%s min=%d median=%d max=%d\n", names[method],
		       SORT_N, is_sorted(work, SORT_N) ? "yes" : "NO", work[0],
		       work[SORT_N / 2], work[SORT_N - 1]);
	}
	return sum;
}
