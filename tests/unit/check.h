/*
 * check.h: the unit tests' few assertions.  A failed CHECK prints where and
 * what, and the test goes on so one run shows every failure; check_done()
 * gives the exit status (0 pass, 1 fail) that automake's harness reads.
 */
#ifndef FAULTLINE_CHECK_H
#define FAULTLINE_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond) do { \
	check_count++; \
	if (!(cond)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	unsigned long long _a = (a), _b = (b); \
	check_count++; \
	if (_a != _b) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", \
			__FILE__, __LINE__, #a, _a, #b, _b); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *_a = (a), *_b = (b); \
	check_count++; \
	if (!_a || !_b || strcmp(_a, _b) != 0) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", \
			__FILE__, __LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)"); \
	} \
} while (0)

/* Write @text to @path, opened with fopen()'s @mode ("w", "a"). */
static inline void check_put(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
