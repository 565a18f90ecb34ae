/*
 * printk-join: printk:console's pieces joined into lines; see
 * printk-join.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/printk-join.h"

struct printk_join {
	char line[PRINTK_JOIN_LINE];
	size_t len;
	uint32_t tid;
	uint64_t time;
	const char *marker;
	printk_line_fn fn;
	void *ctx;
};

int printk_join__new(const char *marker, printk_line_fn fn, void *ctx, struct printk_join **out)
{
	struct printk_join *pj = calloc(1, sizeof(*pj));

	*out = pj;
	if (!pj)
		return -ENOMEM;
	pj->marker = marker;
	pj->fn = fn;
	pj->ctx = ctx;
	return 0;
}

void printk_join__free(struct printk_join *pj)
{
	free(pj);
}

/* The line waiting, as a kmsg record, to the caller. */
static void done(struct printk_join *pj)
{
	char rec[PRINTK_JOIN_LINE * 4 + 64];
	size_t n;

	n = (size_t)snprintf(rec, sizeof(rec), "6,0,%" PRIu64 ",-;", pj->time / 1000);
	for (size_t i = 0; i < pj->len && n + 5 < sizeof(rec); i++) {
		unsigned char c = (unsigned char)pj->line[i];

		if (c == '\\' || c < ' ' || c == 0x7f)
			n += (size_t)snprintf(rec + n, sizeof(rec) - n, "\\x%02x", c);
		else
			rec[n++] = (char)c;
	}
	pj->len = 0;
	pj->fn(rec, n, pj->ctx);
}

bool printk_join__piece(struct printk_join *pj, uint32_t tid, uint64_t time, const char *piece)
{
	size_t len = strlen(piece);
	bool cont = pj->len && pj->tid == tid &&
		    (piece[0] == ',' || piece[0] == ':' || pj->line[pj->len - 1] == '=' ||
		     pj->line[pj->len - 1] == ' ');

	if (pj->len && !cont)
		done(pj);
	if (!pj->len) {
		pj->tid = tid;
		pj->time = time;
	}
	if (len > sizeof(pj->line) - 1 - pj->len)
		len = sizeof(pj->line) - 1 - pj->len;
	memcpy(pj->line + pj->len, piece, len);
	pj->len += len;
	pj->line[pj->len] = '\0';
	if (pj->marker && strstr(pj->line, pj->marker)) {
		done(pj);
		return true;
	}
	return false;
}

void printk_join__flush(struct printk_join *pj, uint64_t now)
{
	if (pj->len && (!now || now - pj->time >= PRINTK_JOIN_WAIT_NS))
		done(pj);
}
