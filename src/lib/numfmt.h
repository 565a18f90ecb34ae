/*
 * numfmt: the one way faultline's own text writes a number (issue 28):
 * counts with thousands separators ("1,234,567"), byte counts exact with
 * their IEC size beside ("5,091,993 B (4.86 MiB)"; below 1 KiB just
 * "512 B"), and a short form for narrow columns ("4.86 MiB").  IEC units,
 * 1024-based: KiB, MiB, GiB, TiB (PiB, EiB past those).  The figure before
 * " B" is exact: a script strips the commas and has the raw integer.
 *
 * Pure: it writes into the caller's buffer (NUMFMT_LEN holds any result),
 * allocates nothing and calls only the C library.  A buffer too small gets
 * a truncated, still NUL-terminated text, as snprintf(3) does.
 *
 * JSON keeps raw integers, and the formats other tools' users parse keep
 * their own (memleak's "%d bytes in %d allocations", the BCC column
 * tables, heaptrack_print's 1000-based K/M): those do not come here.
 */
#ifndef FAULTLINE_NUMFMT_H
#define FAULTLINE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any result: "-18,446,744,073,709,551,615 B (16.00 EiB)". */
#define NUMFMT_LEN 48

/* numfmt__count() - @v with thousands separators: "1,234,567"; returns @buf. */
char *numfmt__count(char *buf, size_t n, uint64_t v);

/* numfmt__scount() - signed, with its sign always: "+2,048", "-7", "+0". */
char *numfmt__scount(char *buf, size_t n, int64_t v);

/*
 * numfmt__bytes() - "5,091,993 B (4.86 MiB)"; below 1 KiB "512 B".
 * Returns @buf.
 */
char *numfmt__bytes(char *buf, size_t n, uint64_t v);

/* numfmt__sbytes() - signed: "+2,048 B (2.00 KiB)", "-120 B", "+0 B". */
char *numfmt__sbytes(char *buf, size_t n, int64_t v);

/*
 * numfmt__short() - the short form for narrow columns: "4.86 MiB", two
 * decimals; below 1 KiB "512 B".  Returns @buf.
 */
char *numfmt__short(char *buf, size_t n, uint64_t v);

#endif
