/*
 * faultline report -i NEW diff OLD: what changed in the heap between two
 * `record -e leak` recordings of a program, stack by stack, as
 * pytest-memray gates a test on it and heaptrack_print --diff compares
 * two runs.
 *
 * Each recording is replayed once through leak's allocation tracer into
 * heap-profile (heap's counting: calls, bytes live at the peak instant,
 * bytes leaked at the end).  Its stacks are then named, frame by frame,
 * while its session still knows the mappings: "function+0xoffset
 * [module]", or "[unknown] module+0xfile-offset" for a frame no symbol
 * covers.  Neither form holds an address, so two runs whose libraries
 * and heap ASLR put elsewhere still match; the pid is no part of the key
 * either.  Stacks of one recording with the same names (two processes,
 * or two stack ids that name alike) add up.
 *
 * The change of a stack is NEW - OLD in leaked bytes, peak bytes and
 * calls; stacks are ordered by the larger of the leaked and the peak
 * change, largest first, then by the calls' change.  --fail-on-increase
 * BYTES exits 1 when any stack's leaked or peak bytes grew by more than
 * BYTES: a CI gate (pytest-memray's --fail-on-increase, in bytes).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "stack/addrspace.h"
#include "agg/alloc-trace.h"
#include "cmd/out/lost.h"
#include "cmd/commands.h"
#include "cmd/tool.h"
#include "agg/heap-profile.h"
#include "lib/file.h"
#include "lib/grow.h"
#include "lib/hashmap.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "cmd/tool-opts.h"

#define TOOL "report diff"

enum { OPT_ALL = 256, OPT_FAIL };

enum { OLD, NEW };

/* One named stack, in either recording or both. */
struct dstack {
	char *key;			/* its frames, innermost first, '\n'-joined */
	uint64_t leaked[2], peak[2], calls[2];
	bool in[2];
};

struct diff {
	struct dstack *st;
	size_t n, cap;
	struct hashmap *idx;		/* hash of key (probed on) -> index + 1 */
	struct heap_totals t[2];
	uint64_t lost[2];
	char remedy[2][512];		/* lost__remedy of each recording */
	const char *path[2];
};

/* ---- one recording ---- */

static struct dstack *stack_of(struct diff *d, const char *key)
{
	uint64_t h = hash_bytes(key, strlen(key)), v;

	for (;; h++) {
		if (!hashmap__get(d->idx, h, &v))
			break;
		if (!strcmp(d->st[v - 1].key, key))
			return &d->st[v - 1];
	}
	if (GROW_FOR(d->st, d->cap, d->n + 1, 64))
		return NULL;
	memset(&d->st[d->n], 0, sizeof(d->st[0]));
	d->st[d->n].key = strdup(key);
	if (!d->st[d->n].key || hashmap__set(d->idx, h, d->n + 1)) {
		free(d->st[d->n].key);
		return NULL;
	}
	return &d->st[d->n++];
}

/* The frames of @stack of @pid, named without addresses, into *@key. */
static int name_stack(struct session *s, pid_t pid, uint32_t stack, char **key, size_t *cap)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(s), stack, &nr);
	size_t len = 0;

	pid = session__stack_pid(s, pid, stack);	/* before an exec: the image of then */
	if (GROW_FOR(*key, *cap, 1, 256))
		return -ENOMEM;
	(*key)[0] = '\0';
	for (uint32_t i = 0; i < nr; i++) {
		struct sym_result res = { 0 };
		char frame[640];
		size_t fl;

		if (!symbolizer__user(session__symbolizer(s), session__addrspaces(s), pid, ips[i],
				      &res) && res.func) {
			sym_result__format(&res, frame, sizeof(frame));
		} else {
			const struct map *m = addrspaces__find(session__addrspaces(s), pid, ips[i]);
			if (m && m->path)
				snprintf(frame, sizeof(frame), "[unknown] %s+0x%" PRIx64,
					 path_base(m->path), ips[i] - m->start + m->pgoff);
			else
				snprintf(frame, sizeof(frame), "[unknown]");
		}
		fl = strlen(frame);
		if (GROW_FOR(*key, *cap, len + fl + 2, 256))
			return -ENOMEM;
		if (len)
			(*key)[len++] = '\n';
		memcpy(*key + len, frame, fl + 1);
		len += fl;
	}
	return 0;
}

static int load(struct diff *d, int which, const struct replay_opts *base, struct errbuf *eb)
{
	struct replay_opts ro = *base;
	struct heap_profile *hp = NULL;
	struct session *s = NULL;
	struct alloc_trace *at = NULL;
	struct stack_site *sites = NULL;
	size_t nsites = 0, cap = 0;
	char *key = NULL;
	int err;

	ro.path = d->path[which];
	err = heap_profile__new(1, &hp);
	if (!err)
		err = session__new_replay(&(struct session_opts){ 0 }, &ro, &s, eb);
	if (!err)
		err = alloc_trace__new(s, &(struct alloc_trace_opts){ 0 },
				       &(struct alloc_trace_hooks){ .made = heap_profile__made,
								    .freed = heap_profile__freed,
								    .gone = heap_profile__gone,
								    .ctx = hp },
				       &at, eb);
	if (!err)
		err = session__run(s, eb);
	if (!err)
		err = heap_profile__error(hp);
	if (!err)
		err = alloc_trace__error(at);
	if (!err)
		err = heap_profile__sites(hp, &sites, &nsites);
	for (size_t i = 0; !err && i < nsites; i++) {
		struct dstack *ds;

		err = name_stack(s, sites[i].pid, sites[i].stack, &key, &cap);
		if (err)
			break;
		ds = stack_of(d, key);
		if (!ds) {
			err = -ENOMEM;
			break;
		}
		ds->in[which] = true;
		ds->leaked[which] += sites[i].leaked;
		ds->peak[which] += sites[i].peak;
		ds->calls[which] += sites[i].calls;
	}
	if (!err) {
		d->t[which] = *heap_profile__totals(hp);
		d->lost[which] = session__lost(s);
		lost__remedy(s, "heap", d->remedy[which], sizeof(d->remedy[which]));
	}
	free(key);
	free(sites);
	alloc_trace__free(at);
	session__free(s);
	heap_profile__free(hp);
	return err;
}

/* ---- the report ---- */

static int64_t change(const uint64_t *v)
{
	return (int64_t)(v[NEW] - v[OLD]);
}

/* What orders the stacks: the larger of the leaked and the peak change. */
static int64_t weight(const struct dstack *ds)
{
	int64_t l = change(ds->leaked), p = change(ds->peak);

	return l > p ? l : p;
}

static int cmp_change(const void *a, const void *b)
{
	const struct dstack *x = a, *y = b;
	int64_t wx = weight(x), wy = weight(y), cx = change(x->calls), cy = change(y->calls);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static bool unchanged(const struct dstack *ds)
{
	return !change(ds->leaked) && !change(ds->peak) && !change(ds->calls);
}

static void json_triple(const char *name, const uint64_t *v)
{
	printf(",\"%s\":{\"old\":%" PRIu64 ",\"new\":%" PRIu64 ",\"change\":%" PRId64 "}", name,
	       v[OLD], v[NEW], change(v));
}

/* A JSON string of @len bytes of @p, or null when @len is 0. */
static void json_part(const char *p, size_t len)
{
	char *v = len ? strndup(p, len) : NULL;

	if (v)
		json__str(stdout, v);
	else
		printf("null");
	free(v);
}

/*
 * One frame of a stack named without addresses (name_stack): {"sym",
 * "func","off","module"} as report's frames are, less "addr": sym is the
 * name as the key holds it, the rest are read back from it ("F+0xO [M]",
 * "[unknown] M+0xFILEOFF", "[unknown]"); func and off are null for an
 * unknown frame.
 */
static void json_named_frame(const char *f, size_t len, bool first)
{
	const char *end = f + len, *plus = NULL, *mod = NULL;
	size_t modlen = 0;

	printf("%s{\"sym\":", first ? "" : ",");
	json_part(f, len);
	if (len >= 9 && !strncmp(f, "[unknown]", 9)) {
		mod = f + 9 + (len > 9);
		for (const char *q = mod; q + 2 < end; q++)
			if (q[0] == '+' && q[1] == '0' && q[2] == 'x')
				plus = q;
		modlen = plus ? (size_t)(plus - mod) : (size_t)(end - mod);
		printf(",\"func\":null,\"off\":null,\"module\":");
		json_part(mod, modlen);
		printf("}");
		return;
	}
	if (len > 3 && end[-1] == ']') {
		for (const char *q = end - 2; q > f && !mod; q--)
			if (q[0] == '[' && q[-1] == ' ')
				mod = q + 1;
	}
	modlen = mod ? (size_t)(end - 1 - mod) : 0;
	for (const char *q = f; q + 2 < (mod ? mod : end); q++)
		if (q[0] == '+' && q[1] == '0' && q[2] == 'x')
			plus = q;
	printf(",\"func\":");
	json_part(f, plus ? (size_t)(plus - f) : (mod ? (size_t)(mod - 2 - f) : len));
	printf(",\"off\":");
	if (plus)
		printf("%llu", strtoull(plus + 3, NULL, 16));
	else
		printf("null");
	printf(",\"module\":");
	json_part(mod, modlen);
	printf("}");
}

/* A stack's or the total's changes, a labelled line each (numfmt). */
static void print_changes(const uint64_t *leaked, const uint64_t *peak, const uint64_t *calls)
{
	char b[3][NUMFMT_LEN];

	printf("  leaked: %s, %s -> %s\n", numfmt__sbytes(b[0], NUMFMT_LEN, change(leaked)),
	       numfmt__bytes(b[1], NUMFMT_LEN, leaked[OLD]),
	       numfmt__bytes(b[2], NUMFMT_LEN, leaked[NEW]));
	printf("  peak:   %s, %s -> %s\n", numfmt__sbytes(b[0], NUMFMT_LEN, change(peak)),
	       numfmt__bytes(b[1], NUMFMT_LEN, peak[OLD]),
	       numfmt__bytes(b[2], NUMFMT_LEN, peak[NEW]));
	printf("  calls:  %s, %s -> %s\n", numfmt__scount(b[0], NUMFMT_LEN, change(calls)),
	       numfmt__count(b[1], NUMFMT_LEN, calls[OLD]),
	       numfmt__count(b[2], NUMFMT_LEN, calls[NEW]));
}

static void print_stack(const struct dstack *ds, bool json)
{
	if (json) {
		const char *p = ds->key;

		printf("{\"type\":\"heap_diff_stack\",\"only_in\":%s",
		       ds->in[OLD] && ds->in[NEW] ? "null" : ds->in[NEW] ? "\"new\"" : "\"old\"");
		json_triple("leaked_bytes", ds->leaked);
		json_triple("peak_bytes", ds->peak);
		json_triple("calls", ds->calls);
		printf(",\"stack\":[");
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			json_named_frame(p, len, p == ds->key);
			p += len + (nl != NULL);
		}
		printf("]}\n");
		return;
	}
	printf("stack%s:\n", ds->in[OLD] && ds->in[NEW] ? "" : ds->in[NEW] ? ", new" : ", gone");
	print_changes(ds->leaked, ds->peak, ds->calls);
	for (const char *p = ds->key; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("\t%.*s\n", len, p);
		p += len + (nl != NULL);
	}
}

static void print_diff(const struct diff *d, size_t limit, bool all, bool json, int64_t fail_over,
		       size_t *over)
{
	uint64_t leaked[2] = { d->t[OLD].live_bytes, d->t[NEW].live_bytes };
	uint64_t peak[2] = { d->t[OLD].peak_bytes, d->t[NEW].peak_bytes };
	uint64_t calls[2] = { d->t[OLD].calls, d->t[NEW].calls };
	size_t shown = 0, changed = 0, only[2] = { 0, 0 };
	char nb[NUMFMT_LEN];

	/* First: what the figures below cannot be trusted for. */
	for (int w = OLD; w <= NEW; w++) {
		if (!d->lost[w])
			continue;
		if (json) {
			printf("{\"type\":\"lost\",\"lost\":%" PRIu64 ",\"recording\":", d->lost[w]);
			json__str(stdout, d->path[w]);
			printf(",\"remedy\":");
			json__str(stdout, d->remedy[w]);
			printf("}\n");
		} else {
			printf("WARNING: lost %s events in %s: its calls, peak and leaks are "
			       "short of what happened; %s\n", numfmt__count(nb, sizeof(nb), d->lost[w]),
			       d->path[w], d->remedy[w]);
		}
		fprintf(stderr, "faultline " TOOL ": warning: lost %s events in %s; %s\n",
			numfmt__count(nb, sizeof(nb), d->lost[w]), d->path[w], d->remedy[w]);
	}
	if (!json)
		printf("HEAP CHANGES from %s (old) to %s (new), by stack\n", d->path[OLD],
		       d->path[NEW]);
	*over = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct dstack *ds = &d->st[i];

		if (fail_over >= 0 && (change(ds->leaked) > fail_over || change(ds->peak) > fail_over))
			(*over)++;
		if (!unchanged(ds))
			changed++;
		if (ds->in[OLD] != ds->in[NEW])
			only[ds->in[NEW] ? NEW : OLD]++;
		if ((!all && unchanged(ds)) || (limit && shown >= limit))
			continue;
		shown++;
		print_stack(ds, json);
	}
	if (json) {
		printf("{\"type\":\"heap_diff_summary\"");
		json_triple("leaked_bytes", leaked);
		json_triple("peak_bytes", peak);
		json_triple("calls", calls);
		printf(",\"stacks\":%zu,\"changed\":%zu,\"only_new\":%zu,\"only_old\":%zu,"
		       "\"fail_on_increase\":%" PRId64 ",\"over_limit\":%zu}\n", d->n, changed,
		       only[NEW], only[OLD], fail_over, *over);
		return;
	}
	printf("\ntotal:\n");
	print_changes(leaked, peak, calls);
	printf("  stacks: %zu, %zu changed (%zu shown), %zu only in new, %zu only in old\n", d->n,
	       changed, shown, only[NEW], only[OLD]);
}

/* ---- options and main ---- */

static bool parse_count(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && end != s && !*end && s[0] != '-' && *v <= max;
}

struct diff_args {
	uint64_t limit;
	bool all;
	int64_t fail_over;	/* -1: no --fail-on-increase */
	const char *old;
};

static const char *diff_opt(int c, const char *arg, void *ctx)
{
	struct diff_args *a = ctx;
	uint64_t v;

	switch (c) {
	case 'n':
		return parse_count(arg, 1000000000, &a->limit) ? NULL : "-n wants a number of stacks, not";
	case OPT_ALL:
		a->all = true;
		return NULL;
	default:	/* OPT_FAIL */
		if (!parse_count(arg, INT64_MAX, &v))
			return "--fail-on-increase wants bytes, not";
		a->fail_over = (int64_t)v;
		return NULL;
	}
}

/* OLD, the one recording to compare with. */
static const char *diff_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct diff_args *a = ctx;

	if (!argc)
		return "which recording to compare with? OLD is missing, not";
	if (argc > 1) {
		*arg = argv[1];
		return "one OLD recording; unexpected argument";
	}
	a->old = argv[0];
	return NULL;
}

/**
 * report_diff() - `faultline report -i NEW diff [OPTIONS] OLD`
 * @ro:   the recording -i names (NEW) and report's options, which apply to
 *        both recordings (--symfs, --since, --until)
 * @argc: arguments from "diff" on
 * @argv: those arguments; not retained
 *
 * Return: EXIT_OK; EXIT_FAIL when a recording cannot be read (the reason
 * printed) or, with --fail-on-increase, when a stack grew by more;
 * EXIT_USAGE.
 */
static const struct tool_option diff_options[] = {
	OPT_CALL('n', "limit", "N", 'n', "stacks shown (default 20; 0: all)"),
	OPT_CALL(0, "all", NULL, OPT_ALL, "the unchanged stacks too"),
	OPT_CALL(0, "fail-on-increase", "BYTES", OPT_FAIL,
		 "exit 1 when any stack's leaked or peak bytes grew by more than BYTES"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per stack, then a summary"),
	OPT_END,
};

const struct tool_cmdline diff_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_REPORT_JSON,
	.options = diff_options,
	.text = {
		.usage_name = "report -i NEW diff",
		.args = "OLD",
		.args_help = "OLD\tthe recording to compare with (record -e leak), the baseline; -i NEW "
			     "is the run under test\n",
		.notes = "Stacks match by their symbolized frames (function+offset [module]), not by\n"
			 "address, so two runs under ASLR match.\n",
	},
	.opt = diff_opt,
	.positional = diff_positional,
};

int report_diff(const struct replay_opts *ro, int argc, char **argv)
{
	struct diff d = { .path = { NULL, ro->path } };
	struct diff_args a = { .limit = 20, .fail_over = -1 };
	struct tool_opts o;
	struct errbuf eb = { "" };
	size_t over = 0;
	int err, ret;

	ret = tool_opts__parse_report_cmdline(&o, &diff_cmdline, &a, argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	d.path[OLD] = a.old;
	if (tool__check_recording(TOOL, d.path[OLD]))
		return EXIT_FAIL;
	d.idx = hashmap__new();
	if (!d.idx) {
		err = -ENOMEM;
		goto fail;
	}
	err = load(&d, OLD, ro, &eb);
	if (!err)
		err = load(&d, NEW, ro, &eb);
	if (err)
		goto fail;
	qsort(d.st, d.n, sizeof(*d.st), cmp_change);
	print_diff(&d, (size_t)a.limit, a.all, o.json, a.fail_over, &over);
	fflush(stdout);
	ret = EXIT_OK;
	if (over) {
		fprintf(stderr, "faultline " TOOL ": %zu stacks grew by more than %" PRId64
			" bytes (leaked or peak)\n", over, a.fail_over);
		ret = EXIT_FAIL;
	}
	goto out;
fail:
	ret = tool__fail(TOOL, &eb, err);
out:
	for (size_t i = 0; i < d.n; i++)
		free(d.st[i].key);
	free(d.st);
	hashmap__free(d.idx);
	return ret;
}
