/*
 * numfmt: counts with thousands separators and byte counts with their IEC
 * size (see numfmt.h).  Calls only the C library.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/numfmt.h"

/* The digits of @v grouped by three, from the right, into @out (>= 27 bytes). */
static void group(char *out, uint64_t v)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

/* The magnitude of a signed figure, INT64_MIN included. */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

char *numfmt__count(char *buf, size_t n, uint64_t v)
{
	char g[32];

	group(g, v);
	snprintf(buf, n, "%s", g);
	return buf;
}

char *numfmt__scount(char *buf, size_t n, int64_t v)
{
	char g[32];

	group(g, magnitude(v));
	snprintf(buf, n, "%c%s", v < 0 ? '-' : '+', g);
	return buf;
}

char *numfmt__short(char *buf, size_t n, uint64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t u = 0;
	double x;

	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", v);
		return buf;
	}
	x = (double)v / 1024.0;
	/*
	 * The unit is chosen on the rounded figure: 1048575 B is "1.00 MiB",
	 * never "1024.00 KiB".
	 */
	while (u + 1 < sizeof(units) / sizeof(units[0]) && x >= 1024.0 - 0.005) {
		x /= 1024.0;
		u++;
	}
	snprintf(buf, n, "%.2f %s", x, units[u]);
	return buf;
}

/* "[sign]GROUPED B" and, from 1 KiB, " (SHORT)". */
static char *bytes(char *buf, size_t n, const char *sign, uint64_t v)
{
	char g[32], s[NUMFMT_LEN];

	group(g, v);
	if (v < 1024)
		snprintf(buf, n, "%s%s B", sign, g);
	else
		snprintf(buf, n, "%s%s B (%s)", sign, g, numfmt__short(s, sizeof(s), v));
	return buf;
}

char *numfmt__bytes(char *buf, size_t n, uint64_t v)
{
	return bytes(buf, n, "", v);
}

char *numfmt__sbytes(char *buf, size_t n, int64_t v)
{
	return bytes(buf, n, v < 0 ? "-" : "+", magnitude(v));
}
