/* expr.c - a recursive-descent parser and evaluator for integer expressions with
 * variables, in the style of a desk calculator. */
#include "common.h"

#define EXPR_VARS 26

static const char *expr_pos;
static long expr_vars[EXPR_VARS];
static int expr_error;

static void expr_skip_space(void)
{
	while (*expr_pos == ' ')
		expr_pos++;
}

static long expr_sum(void);

static long expr_primary(void)
{
	long v = 0;

	expr_skip_space();
	if (*expr_pos == '(') {
		expr_pos++;
		v = expr_sum();
		expr_skip_space();
		if (*expr_pos == ')')
			expr_pos++;
		else
			expr_error = 1;
	} else if (*expr_pos == '-') {
		expr_pos++;
		v = -expr_primary();
	} else if (*expr_pos >= '0' && *expr_pos <= '9') {
		while (*expr_pos >= '0' && *expr_pos <= '9')
			v = v * 10 + (*expr_pos++ - '0');
	} else if (*expr_pos >= 'a' && *expr_pos <= 'z') {
		v = expr_vars[*expr_pos++ - 'a'];
	} else {
		expr_error = 1;
	}
	return v;
}

/* Exponentiation binds tighter than multiplication and is right-associative. */
static long expr_power(void)
{
	long base = expr_primary(), exp, r = 1;

	expr_skip_space();
	if (*expr_pos != '^')
		return base;
	expr_pos++;
	exp = expr_power();
	while (exp-- > 0)
		r *= base;
	return r;
}

static long expr_product(void)
{
	long v = expr_power(), rhs;
	char op;

	for (;;) {
		expr_skip_space();
		op = *expr_pos;
		if (op != '*' && op != '/' && op != '%')
			return v;
		expr_pos++;
		rhs = expr_power();
		if (op == '*')
			v *= rhs;
		else if (rhs == 0)
			expr_error = 1;
		else if (op == '/')
			v /= rhs;
		else
			v %= rhs;
	}
}

static long expr_sum(void)
{
	long v = expr_product();
	char op;

	for (;;) {
		expr_skip_space();
		op = *expr_pos;
		if (op != '+' && op != '-')
			return v;
		expr_pos++;
		if (op == '+')
			v += expr_product();
		else
			v -= expr_product();
	}
}

/* "x = expr" assigns, anything else is printed. */
static long expr_statement(const char *line)
{
	long v;
	int target = -1;

	expr_pos = line;
	expr_error = 0;
	expr_skip_space();
	if (expr_pos[0] >= 'a' && expr_pos[0] <= 'z' && strchr(expr_pos, '=') != NULL) {
		target = expr_pos[0] - 'a';
		expr_pos = strchr(expr_pos, '=') + 1;
	}
	v = expr_sum();
	expr_skip_space();
	if (*expr_pos != '\0')
		expr_error = 1;
	if (expr_error)
		printf("expr %-28s error\n", line);
	else if (target >= 0) {
		expr_vars[target] = v;
		printf("expr %-28s %c := %ld\n", line, 'a' + target, v);
	} else
		printf("expr %-28s = %ld\n", line, v);
	return expr_error ? -1 : v;
}

checksum_t expr_section(void)
{
	static const char *program[] = {
		"1 + 2 * 3",
		"(1 + 2) * 3",
		"2 ^ 3 ^ 2",
		"a = 1000",
		"b = a * a - 1",
		"b % 97",
		"c = (a + b) / 7",
		"c - -c",
		"d = 2 ^ 40",
		"d / (a + 24)",
		"(((((7)))))",
		"1 / 0",
		"3 + ",
		"e = 17 * 19 * 23",
		"e % 13 + e / 1000",
		"f = e ^ 2 - b",
		"f / 3 * 3 + f % 3 - f",
	};
	checksum_t sum = 0;
	size_t i;
	long v;
	int round;

	for (i = 0; i < sizeof program / sizeof program[0]; i++)
		sum = fold(sum, (unsigned long)expr_statement(program[i]));
	/* A loop the calculator runs itself: the collatz steps of 27, with x and y. */
	expr_statement("x = 27");
	for (round = 0; round < 200 && expr_vars['x' - 'a'] != 1; round++) {
		expr_pos = expr_vars['x' - 'a'] % 2 ? "x * 3 + 1" : "x / 2";
		v = expr_sum();
		expr_vars['x' - 'a'] = v;
	}
	printf("expr collatz(27) reaches 1 after %d steps\n", round);
	return fold(sum, (unsigned long)round);
}
