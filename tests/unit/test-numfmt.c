/*
 * test-numfmt: the one number format of faultline's text: counts grouped
 * by three ("1,234,567"), byte counts exact then IEC ("5,091,993 B
 * (4.86 MiB)", "512 B" below 1 KiB), the short form's unit chosen after
 * rounding, signed forms for diff, the extremes, and a buffer too small.
 */
#include <stdint.h>
#include <string.h>

#include "lib/numfmt.h"
#include "check.h"

int main(void)
{
	char b[NUMFMT_LEN], tiny[6];

	CHECK_STR(numfmt__count(b, sizeof(b), 0), "0");
	CHECK_STR(numfmt__count(b, sizeof(b), 999), "999");
	CHECK_STR(numfmt__count(b, sizeof(b), 1000), "1,000");
	CHECK_STR(numfmt__count(b, sizeof(b), 120), "120");
	CHECK_STR(numfmt__count(b, sizeof(b), 1234567), "1,234,567");
	CHECK_STR(numfmt__count(b, sizeof(b), 12345678), "12,345,678");
	CHECK_STR(numfmt__count(b, sizeof(b), UINT64_MAX), "18,446,744,073,709,551,615");

	CHECK_STR(numfmt__scount(b, sizeof(b), 0), "+0");
	CHECK_STR(numfmt__scount(b, sizeof(b), 4), "+4");
	CHECK_STR(numfmt__scount(b, sizeof(b), -2048), "-2,048");
	CHECK_STR(numfmt__scount(b, sizeof(b), INT64_MIN), "-9,223,372,036,854,775,808");

	/* The figure, one format wherever it is shown. */
	CHECK_STR(numfmt__bytes(b, sizeof(b), 5091993), "5,091,993 B (4.86 MiB)");
	CHECK_STR(numfmt__short(b, sizeof(b), 5091993), "4.86 MiB");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 0), "0 B");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 512), "512 B");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 1023), "1,023 B");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 1024), "1,024 B (1.00 KiB)");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 4392), "4,392 B (4.29 KiB)");
	CHECK_STR(numfmt__bytes(b, sizeof(b), 68000), "68,000 B (66.41 KiB)");
	CHECK_STR(numfmt__short(b, sizeof(b), 1536), "1.50 KiB");
	/* The unit follows the rounding: never "1024.00 KiB". */
	CHECK_STR(numfmt__short(b, sizeof(b), 1048575), "1.00 MiB");
	CHECK_STR(numfmt__short(b, sizeof(b), 1048576), "1.00 MiB");
	CHECK_STR(numfmt__short(b, sizeof(b), 1048576 - 6000), "1018.14 KiB");
	CHECK_STR(numfmt__short(b, sizeof(b), 3ull << 30), "3.00 GiB");
	CHECK_STR(numfmt__short(b, sizeof(b), 5ull << 40), "5.00 TiB");
	CHECK_STR(numfmt__short(b, sizeof(b), 2ull << 50), "2.00 PiB");
	CHECK_STR(numfmt__bytes(b, sizeof(b), UINT64_MAX),
		  "18,446,744,073,709,551,615 B (16.00 EiB)");

	CHECK_STR(numfmt__sbytes(b, sizeof(b), 2048), "+2,048 B (2.00 KiB)");
	CHECK_STR(numfmt__sbytes(b, sizeof(b), -120), "-120 B");
	CHECK_STR(numfmt__sbytes(b, sizeof(b), 0), "+0 B");
	CHECK_STR(numfmt__sbytes(b, sizeof(b), INT64_MIN),
		  "-9,223,372,036,854,775,808 B (8.00 EiB)");
	CHECK(strlen(numfmt__sbytes(b, sizeof(b), INT64_MIN)) < NUMFMT_LEN);
	CHECK(strlen("-18,446,744,073,709,551,615 B (16.00 EiB)") < NUMFMT_LEN);

	/* Too small a buffer: cut short, still a string. */
	CHECK_STR(numfmt__bytes(tiny, sizeof(tiny), 5091993), "5,091");
	CHECK_STR(numfmt__count(tiny, sizeof(tiny), 1234567), "1,234");
	return check_done("test-numfmt");
}
