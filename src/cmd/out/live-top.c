/*
 * live-top: the --live screen of leak and heap (see live-top.h): what each
 * stack holds, kept per (pid, stack) with its figures at the first screen
 * and at the one before, sorted by the key chosen, drawn on the terminal
 * of cmd/out/screen.  May call the session (clock, counters, stacks,
 * symbolizer), the stack layer's tables, lib/, cmd/out/screen and
 * cmd/out/report (a frame named as the text report names it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/out/live-top.h"
#include "cmd/out/report.h"
#include "cmd/out/screen.h"
#include "lib/errbuf.h"
#include "lib/file.h"
#include "lib/grow.h"
#include "lib/hashmap.h"
#include "lib/numfmt.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "trace/session.h"

/* Lines are cut here whatever the terminal's width. */
#define LINE_MAX_COLS 512
/* The lines above the rows: the totals, the keys, the column names. */
#define HEAD_LINES 3

enum sort_key { SORT_BYTES, SORT_GROWTH, SORT_INTERVAL, SORT_BLOCKS };
static const char *const sort_names[] = { "outstanding", "growth", "interval", "blocks" };

struct site {
	pid_t pid;
	uint32_t stack;
	uint64_t bytes, blocks;	/* held now */
	uint64_t base;		/* bytes at the first screen */
	uint64_t prev;		/* bytes at the screen before */
};

struct live_top {
	struct session *s;
	struct live_top_opts o;
	struct screen *sc;
	struct hashmap *idx;	/* pid << 32 | stack -> index in sites + 1 */
	struct site *sites;
	size_t nsites, capsites;
	size_t *rows;		/* indexes of the sites shown, sorted */
	size_t nrows, caprows;
	enum sort_key sort;
	size_t first;		/* the row at the top (scrolled) */
	unsigned long screens;	/* refreshes so far */
	uint64_t total_bytes, total_blocks;
	size_t stacks;		/* holding anything */
	uint64_t samples_at, at_ns;	/* at the screen before */
	double rate;		/* events a second over the last interval */
	unsigned int rows_seen, cols_seen;	/* the size last drawn at */
	bool ended;
};

int live_top__check(bool replay, const char *given, struct errbuf *eb)
{
	if (replay)
		return errbuf__set(eb, -EINVAL, "--live shows a live run: not under record or report");
	if (given)
		return errbuf__set(eb, -EINVAL, "--live draws on the terminal: not with %s", given);
	if (!isatty(STDOUT_FILENO))
		return errbuf__set(eb, -EINVAL, "--live draws on a terminal, and stdout is not one");
	return 0;
}

int live_top__new(struct session *s, const struct live_top_opts *o, struct live_top **out)
{
	struct live_top *lt = calloc(1, sizeof(*lt));

	*out = NULL;
	if (!lt)
		return -ENOMEM;
	lt->s = s;
	lt->o = *o;
	lt->idx = hashmap__new();
	if (!lt->idx || screen__new(&lt->sc)) {
		live_top__free(lt);
		return -ENOMEM;
	}
	*out = lt;
	return 0;
}

void live_top__end(struct live_top *lt)
{
	if (!lt || lt->ended)
		return;
	lt->ended = true;
	screen__end(lt->sc);
}

void live_top__free(struct live_top *lt)
{
	if (!lt)
		return;
	live_top__end(lt);
	screen__free(lt->sc);
	hashmap__free(lt->idx);
	free(lt->sites);
	free(lt->rows);
	free(lt);
}

int live_top__add(struct live_top *lt, pid_t pid, uint32_t stack, uint64_t bytes, uint64_t blocks)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | stack, i;

	if (!hashmap__get(lt->idx, key, &i)) {
		if (GROW_FOR(lt->sites, lt->capsites, lt->nsites + 1, 64) ||
		    hashmap__set(lt->idx, key, lt->nsites + 1))
			return -ENOMEM;
		lt->sites[lt->nsites] = (struct site){ .pid = pid, .stack = stack };
		i = ++lt->nsites;
	}
	lt->sites[i - 1].bytes += bytes;
	lt->sites[i - 1].blocks += blocks;
	return 0;
}

/* ---- sorting ---- */

static int64_t growth(const struct site *st)
{
	return (int64_t)(st->bytes - st->base);
}

static int64_t interval(const struct site *st)
{
	return (int64_t)(st->bytes - st->prev);
}

static int64_t sort_value(const struct site *st, enum sort_key k)
{
	switch (k) {
	case SORT_GROWTH:
		return growth(st);
	case SORT_INTERVAL:
		return interval(st);
	case SORT_BLOCKS:
		return (int64_t)st->blocks;
	default:
		return (int64_t)st->bytes;
	}
}

/* Largest first; ties by bytes, then pid and stack (a stable screen). */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct live_top *lt = ctx;
	const struct site *x = &lt->sites[*(const size_t *)a], *y = &lt->sites[*(const size_t *)b];
	int64_t vx = sort_value(x, lt->sort), vy = sort_value(y, lt->sort);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static void sort_rows(struct live_top *lt)
{
	if (lt->nrows)
		qsort_r(lt->rows, lt->nrows, sizeof(*lt->rows), cmp_rows, lt);
}

/* ---- a stack's name ---- */

/* @f without the prefixes of glibc's aliases (__libc_malloc, __mmap,
 * __GI___mmap64) and of the prefixed allocators' (je_, tc_, mi_). */
static const char *bare_name(const char *f)
{
	for (;;) {
		while (*f == '_')
			f++;
		if (!strncmp(f, "GI_", 3) || !strncmp(f, "je_", 3) || !strncmp(f, "tc_", 3) ||
		    !strncmp(f, "mi_", 3))
			f += 3;
		else if (!strncmp(f, "libc_", 5))
			f += 5;
		else
			return f;
	}
}

/* The functions a stack of a user allocation may begin in: the probed
 * ones (probes/NAME.probes), the syscalls' wrappers, operator new. */
static bool user_allocator(const char *func)
{
	static const char *const names[] = {
		"malloc", "calloc", "realloc", "reallocarray", "free", "memalign", "aligned_alloc",
		"posix_memalign", "valloc", "pvalloc", "mmap", "mmap64", "mremap", "munmap", "brk",
		"sbrk",
	};
	const char *f = bare_name(func);

	if (!strncmp(func, "_Znw", 4) || !strncmp(func, "_Zna", 4) ||
	    !strncmp(func, "operator new", 12))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f, names[i]))
			return true;
	return false;
}

/* The kernel's allocators, by prefix (their _noprof, _node, _trace... forms). */
static bool kernel_allocator(const char *func)
{
	static const char *const prefixes[] = {
		"kmalloc", "kmem_cache_alloc", "krealloc", "kvmalloc", "kzalloc", "kvzalloc",
		"kcalloc", "alloc_pages", "alloc_frozen_pages", "folio_alloc", "vma_alloc_folio",
		"alloc_slab_page", "allocate_slab", "new_slab", "slab_alloc", "get_page_from_freelist",
		"rmqueue", "get_free_pages", "get_zeroed_page", "pcpu_alloc", "vmalloc",
	};
	const char *f = bare_name(func);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Frame @ip of @pid as the text report names it (report__frame_sym);
 * its function, or NULL. */
static const char *frame(struct live_top *lt, pid_t pid, uint64_t ip, bool is_return,
			 struct sym_result *res)
{
	report__frame_sym(lt->s, pid, ip, is_return, res);
	return res->func;
}

/*
 * "func [module] < caller < caller's caller", from the innermost frame
 * that is not the allocator's, into @buf (@n bytes: the callers stop
 * where they no longer fit).
 */
static void stack_text(struct live_top *lt, const struct site *st, char *buf, size_t n)
{
	uint32_t nr = 0, i = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(lt->s), st->stack, &nr);
	pid_t pid = session__stack_pid(lt->s, st->pid, st->stack);
	struct sym_result res;
	size_t len;

	if (!ips || !nr) {
		snprintf(buf, n, "[stack information lost]");
		return;
	}
	for (uint32_t k = 0; k < nr; k++) {
		const char *f = frame(lt, pid, ips[k], k > 0, &res);

		if (!f || !(ips[k] >= REPORT_KERNEL_START ? kernel_allocator(f) : user_allocator(f))) {
			i = k;
			break;
		}
	}
	/* The first as the text report prints a frame, its callers by name
	 * (without symbol versions: "@@GLIBC_2.34"). */
	frame(lt, pid, ips[i], i > 0, &res);
	sym_result__format(&res, buf, n);
	len = strlen(buf);
	for (uint32_t k = i + 1; k < nr && len + 4 < n; k++) {
		const char *f = frame(lt, pid, ips[k], true, &res);
		int w = f ? snprintf(buf + len, n - len, " < %.*s", (int)strcspn(f, "@"), f) :
			    snprintf(buf + len, n - len, " < 0x%" PRIx64, ips[k]);

		if (w < 0 || (size_t)w >= n - len) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
}

/* ---- drawing ---- */

/* One line of @text, at most @width columns, blanked to the end; a
 * newline after it unless it is the screen's last (which would scroll). */
static void put_line(FILE *f, const char *text, unsigned int width, bool reverse, bool last)
{
	size_t len = strlen(text);

	if (len > width)
		len = width;
	if (reverse)
		fprintf(f, "%s%.*s%*s%s", SCREEN_REVERSE, (int)len, text, (int)(width - len), "",
			SCREEN_PLAIN);
	else
		fprintf(f, "%.*s%s", (int)len, text, SCREEN_EOL);
	if (!last)
		fputc('\n', f);
}

static void elapsed_text(double secs, char *buf, size_t n)
{
	unsigned long s = secs > 0 ? (unsigned long)secs : 0;

	if (s >= 3600)
		snprintf(buf, n, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, n, "%lu:%02lu", s / 60, s % 60);
}

/* The rows below the head there is room for. */
static size_t room(unsigned int rows)
{
	return rows > HEAD_LINES ? rows - HEAD_LINES : 1;
}

static void clamp_first(struct live_top *lt, size_t space)
{
	size_t max = lt->nrows > space ? lt->nrows - space : 0;

	if (lt->first > max)
		lt->first = max;
}

static void draw_rows(struct live_top *lt, FILE *f, unsigned int width, size_t space)
{
	char head[96], name[LINE_MAX_COLS + 1];

	for (size_t r = 0; r < space; r++) {
		size_t i = lt->first + r;
		const struct site *st;
		int len;

		if (i >= lt->nrows) {
			put_line(f, "", width, false, r + 1 == space);
			continue;
		}
		st = &lt->sites[lt->rows[i]];
		len = snprintf(head, sizeof(head), "%12" PRIu64 " %9" PRIu64 " %+12" PRId64 " %+12"
			       PRId64 "  ", st->bytes, st->blocks, growth(st), interval(st));
		stack_text(lt, st, name, width > (unsigned int)len ? width - (unsigned int)len + 1 : 1);
		fprintf(f, "%.*s", (int)((unsigned int)len < width ? (unsigned int)len : width), head);
		put_line(f, name, width > (unsigned int)len ? width - (unsigned int)len : 0, false,
			 r + 1 == space);
	}
}

static int draw(struct live_top *lt)
{
	char line[LINE_MAX_COLS + 1], when[32], nb[5][NUMFMT_LEN], *buf = NULL;
	unsigned int rows = 0, cols = 0, width;
	const char *est = lt->o.estimates ? "~" : "";
	size_t len = 0, space;
	long w;
	FILE *f;

	/* Stopped and continued in the background: the shell's terminal. */
	if (screen__off(lt->sc))
		return 0;
	screen__enter(lt->sc, &rows, &cols);
	lt->rows_seen = rows;
	lt->cols_seen = cols;
	if (!rows)
		rows = 24;
	if (!cols)
		cols = 80;
	/* Not the last column: some terminals wrap there. */
	width = cols - 1 < LINE_MAX_COLS ? cols - 1 : LINE_MAX_COLS;
	space = room(rows);
	clamp_first(lt, space);
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	/* Drawn over the last screen, line by line, and sent in one write:
	 * no blank screen between two. */
	fputs(SCREEN_HOME, f);
	elapsed_text(session__elapsed(lt->s, session__now(lt->s)), when, sizeof(when));
	/* faultline's number format (lib/numfmt): the totals exact; the
	 * columns below stay plain numbers, as a table's do. */
	snprintf(line, sizeof(line), "%s [%s]  %s%s in %s%s blocks, %s stacks; %s events/s, %s lost",
		 lt->o.title, when, est, numfmt__bytes(nb[0], sizeof(nb[0]), lt->total_bytes), est,
		 numfmt__count(nb[1], sizeof(nb[1]), lt->total_blocks),
		 numfmt__count(nb[2], sizeof(nb[2]), lt->stacks),
		 numfmt__count(nb[3], sizeof(nb[3]), (uint64_t)(lt->rate + 0.5)),
		 numfmt__count(nb[4], sizeof(nb[4]), session__lost(lt->s)));
	put_line(f, line, width, false, false);
	snprintf(line, sizeof(line), "sort: %s (o outstanding, g growth, i interval, b blocks)  "
		 "j/k scroll  q quit  rows %zu-%zu of %zu", sort_names[lt->sort],
		 lt->nrows ? lt->first + 1 : 0,
		 lt->first + space < lt->nrows ? lt->first + space : lt->nrows, lt->nrows);
	put_line(f, line, width, false, false);
	snprintf(line, sizeof(line), "%12s %9s %12s %12s  %s", "OUTSTANDING", "BLOCKS", "GROWTH",
		 "INTERVAL", "STACK");
	put_line(f, line, width, true, false);
	draw_rows(lt, f, width, space);
	fputs(SCREEN_EOS, f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	/* On the terminal, fd 1, whatever stdout's stream points at: with
	 * --output the report goes to its file, the screen stays here. */
	w = write_fd(STDOUT_FILENO, buf, len);
	free(buf);
	return w < 0 ? (int)w : 0;
}

int live_top__refresh(struct live_top *lt)
{
	uint64_t now = session__now(lt->s), samples = session__samples(lt->s);
	int err;

	if (lt->ended)
		return 0;
	for (size_t i = 0; i < lt->nsites; i++) {
		lt->sites[i].prev = lt->sites[i].bytes;
		lt->sites[i].bytes = lt->sites[i].blocks = 0;
	}
	err = lt->o.read(lt->o.ctx, lt);
	if (err)
		return err;
	lt->total_bytes = lt->total_blocks = 0;
	lt->stacks = 0;
	lt->nrows = 0;
	for (size_t i = 0; i < lt->nsites; i++) {
		struct site *st = &lt->sites[i];

		/* The first screen is the reference of both growths. */
		if (!lt->screens)
			st->base = st->prev = st->bytes;
		lt->total_bytes += st->bytes;
		lt->total_blocks += st->blocks;
		lt->stacks += st->bytes || st->blocks;
		if (!st->bytes && !st->blocks && st->base == 0 && st->prev == 0)
			continue;
		if (GROW_FOR(lt->rows, lt->caprows, lt->nrows + 1, 64))
			return -ENOMEM;
		lt->rows[lt->nrows++] = i;
	}
	if (lt->screens)
		lt->rate = now > lt->at_ns ? (double)(samples - lt->samples_at) * 1e9 /
					     (double)(now - lt->at_ns) : 0;
	else
		lt->rate = session__elapsed(lt->s, now) > 0 ?
			   (double)samples / session__elapsed(lt->s, now) : 0;
	lt->samples_at = samples;
	lt->at_ns = now;
	lt->screens++;
	sort_rows(lt);
	screen__keys_on(lt->sc);
	return draw(lt);
}

bool live_top__keys(struct live_top *lt)
{
	unsigned int rows = 0, cols = 0;
	bool redraw = false;
	size_t space;
	int key;

	if (lt->ended || !lt->screens)
		return false;
	screen__size(lt->sc, &rows, &cols);
	space = room(rows ? rows : 24);
	while ((key = screen__key(lt->sc)) != SCREEN_KEY_NONE) {
		size_t before = lt->first;
		enum sort_key sort = lt->sort;

		switch (key) {
		case 'q':
		case 'Q':
			return true;
		case 'o':
			lt->sort = SORT_BYTES;
			break;
		case 'g':
			lt->sort = SORT_GROWTH;
			break;
		case 'i':
			lt->sort = SORT_INTERVAL;
			break;
		case 'b':
			lt->sort = SORT_BLOCKS;
			break;
		case 'j':
		case SCREEN_KEY_DOWN:
			lt->first++;
			break;
		case 'k':
		case SCREEN_KEY_UP:
			lt->first -= lt->first > 0;
			break;
		case SCREEN_KEY_PGDN:
		case ' ':
			lt->first += space;
			break;
		case SCREEN_KEY_PGUP:
			lt->first = lt->first > space ? lt->first - space : 0;
			break;
		case SCREEN_KEY_HOME:
			lt->first = 0;
			break;
		case SCREEN_KEY_END:
			lt->first = lt->nrows;
			break;
		}
		clamp_first(lt, space);
		if (sort != lt->sort) {
			sort_rows(lt);
			lt->first = 0;
		}
		redraw |= sort != lt->sort || before != lt->first;
	}
	/* Continued (fg): the screen is blank, drawn again at once. */
	if (rows != lt->rows_seen || cols != lt->cols_seen || screen__resumed(lt->sc))
		redraw = true;
	/* No memory for a redraw: the next interval's tries again. */
	if (redraw)
		(void)draw(lt);
	return false;
}
