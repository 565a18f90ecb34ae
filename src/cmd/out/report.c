/*
 * report: shared output of stacks and accounting.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "stack/addrspace.h"
#include "lib/hashmap.h"
#include "cmd/out/lost.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "stack/unwind.h"

void report__init(struct report *r, struct session *s, FILE *out, bool srcline)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->out = out;
	r->srcline = srcline;
	r->rendered = hashmap__new();	/* NULL: no cache, still correct */
}

struct rendered {
	pid_t pid;
	uint32_t stack;
	uint64_t layout;
	uint64_t code_gen;
	uint64_t frames, unknown;	/* what printing it adds to the footer */
	char *text;
	size_t len;
	struct rendered *next;		/* same hash */
};

void report__fini(struct report *r)
{
	uint64_t key, val;
	size_t pos = 0;

	if (!r || !r->rendered)
		return;
	while (hashmap__next(r->rendered, &pos, &key, &val)) {
		for (struct rendered *c = (struct rendered *)(uintptr_t)val, *next; c; c = next) {
			next = c->next;
			free(c->text);
			free(c);
		}
	}
	hashmap__free(r->rendered);
	r->rendered = NULL;
	r->nrendered = 0;
}

void report__json_stamp(struct report *r, const char *clock, unsigned long interval)
{
	snprintf(r->stamp, sizeof(r->stamp), ",\"time\":\"%.16s\",\"interval\":%lu", clock,
		 interval);
}

/* Bound the cache (-a over hours sees many processes): start over. */
#define MAX_RENDERED 65536

static uint64_t rendered_key(pid_t pid, uint32_t stack, uint64_t layout)
{
	uint64_t k[3] = { (uint64_t)pid, stack, layout };

	return hash_bytes(k, sizeof(k));
}

/* Print a cached rendering if it is still valid; true when done. */
static bool print_cached(struct report *r, pid_t pid, uint32_t stack, uint64_t layout)
{
	uint64_t v, gen = addrspaces__code_generation(session__addrspaces(r->s), pid);

	if (!r->rendered || !hashmap__get(r->rendered, rendered_key(pid, stack, layout), &v))
		return false;
	for (struct rendered *c = (struct rendered *)(uintptr_t)v; c; c = c->next) {
		if (c->pid != pid || c->stack != stack || c->layout != layout)
			continue;
		if (c->code_gen != gen)
			return false;
		fwrite(c->text, 1, c->len, r->out);
		r->frames += c->frames;
		r->unknown += c->unknown;
		return true;
	}
	return false;
}

typedef void (*render_fn)(struct report *r, pid_t pid, uint32_t stack, const char *indent,
			  bool addrs);

/* Render into memory, print, and keep the text for next time. */
static void print_rendered(struct report *r, pid_t pid, uint32_t stack, uint64_t layout,
			   render_fn fn, const char *indent, bool addrs)
{
	uint64_t f0 = r->frames, u0 = r->unknown, key = rendered_key(pid, stack, layout), v;
	FILE *real = r->out, *mem;
	struct rendered *c, *head = NULL;
	char *text = NULL;
	size_t len = 0;

	if (print_cached(r, pid, stack, layout))
		return;
	mem = r->rendered ? open_memstream(&text, &len) : NULL;
	if (!mem) {
		fn(r, pid, stack, indent, addrs);
		return;
	}
	r->out = mem;
	fn(r, pid, stack, indent, addrs);
	r->out = real;
	if (fclose(mem) != 0 || !text) {
		/* Out of memory: print directly, counting the frames once. */
		free(text);
		r->frames = f0;
		r->unknown = u0;
		fn(r, pid, stack, indent, addrs);
		return;
	}
	fwrite(text, 1, len, real);
	/* Replace a stale entry of the same key, else add one. */
	if (hashmap__get(r->rendered, key, &v))
		head = (struct rendered *)(uintptr_t)v;
	for (c = head; c; c = c->next)
		if (c->pid == pid && c->stack == stack && c->layout == layout)
			break;
	if (!c && r->nrendered >= MAX_RENDERED) {
		report__fini(r);
		r->rendered = hashmap__new();
		head = NULL;
		if (!r->rendered) {
			free(text);
			return;
		}
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || hashmap__set(r->rendered, key, (uint64_t)(uintptr_t)c)) {
			free(c);
			free(text);
			return;
		}
		c->next = head;
		r->nrendered++;
	} else {
		free(c->text);
	}
	c->pid = pid;
	c->stack = stack;
	c->layout = layout;
	c->code_gen = addrspaces__code_generation(session__addrspaces(r->s), pid);
	c->frames = r->frames - f0;
	c->unknown = r->unknown - u0;
	c->text = text;
	c->len = len;
}

#define MAX_INLINES 16

/*
 * Every frame but the innermost is a return address: the instruction after
 * a call.  A call that ends its function returns to the next function's
 * first byte, so look up ip - 1 and print the offset of ip itself.
 */
static uint64_t lookup_ip(uint64_t ip, bool is_return)
{
	return is_return && ip ? ip - 1 : ip;
}

/* The inline chain at a frame (innermost first, the containing function
 * last); 0 entries when there is no line information. */
static size_t frame_lines(struct report *r, pid_t pid, uint64_t ip, bool is_return,
			  struct sym_inline *lines)
{
	size_t n = 0;

	if (!r->srcline ||
	    symbolizer__srcline(session__symbolizer(r->s), session__addrspaces(r->s), pid,
				lookup_ip(ip, is_return), lines, MAX_INLINES, &n))
		return 0;
	return n;
}

static void print_pos(FILE *out, const struct sym_inline *l)
{
	fprintf(out, " %s:%u", l->file ? l->file : "??", l->line);
}

void report__frame_sym(struct session *s, pid_t pid, uint64_t ip, bool is_return,
		       struct sym_result *res)
{
	uint64_t look = lookup_ip(ip, is_return);

	memset(res, 0, sizeof(*res));
	if (look >= REPORT_KERNEL_START) {
		if (symbolizer__kernel(session__symbolizer(s), look, res)) {
			res->func = NULL;
			res->module = NULL;
		}
	} else if (symbolizer__user(session__symbolizer(s), session__addrspaces(s), pid, look,
				    res)) {
		res->func = NULL;
		res->module = NULL;
	}
	res->addr = ip;
	if (res->func)
		res->offset += ip - look;
	else
		res->offset = 0;
}

/* Symbolize one frame into @res and count it for the footer. */
static void frame_sym(struct report *r, pid_t pid, uint64_t ip, bool is_return,
		      struct sym_result *res)
{
	report__frame_sym(r->s, pid, ip, is_return, res);
	r->frames++;
	if (!res->func)
		r->unknown++;
}

static void frame_text(struct report *r, pid_t pid, uint64_t ip, bool is_return, char *buf,
		       size_t n)
{
	struct sym_result res;

	frame_sym(r, pid, ip, is_return, &res);
	sym_result__format(&res, buf, n);
}

static void render_text(struct report *r, pid_t pid, uint32_t stack_id, const char *indent,
			bool addrs)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(r->s), stack_id, &nr);
	char buf[1024];

	if (!ips || !nr) {
		fprintf(r->out, "%s[stack information lost]\n", indent);
		return;
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct sym_inline lines[MAX_INLINES];
		size_t nl = frame_lines(r, pid, ips[i], i > 0, lines);

		/* Inlined callees first, as perf shows them: they are the
		 * innermost code at this address. */
		for (size_t k = 0; k + 1 < nl; k++) {
			fprintf(r->out, "%s%s%s (inlined)", indent, addrs ? "                  \t" : "",
				lines[k].func ? lines[k].func : "[unknown]");
			print_pos(r->out, &lines[k]);
			fputc('\n', r->out);
		}
		frame_text(r, pid, ips[i], i > 0, buf, sizeof(buf));
		if (addrs)
			fprintf(r->out, "%s0x%016" PRIx64 "\t%s", indent, ips[i], buf);
		else
			fprintf(r->out, "%s%s", indent, buf);
		if (nl)
			print_pos(r->out, &lines[nl - 1]);
		fputc('\n', r->out);
	}
}

void report__folded(struct report *r, pid_t pid, const char *comm, uint32_t stack_id,
		    uint64_t weight)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(r->s), stack_id, &nr);
	pid_t in = session__stack_pid(r->s, pid, stack_id);
	char buf[1024];

	/* Taken before an exec: the program's then, and its name. */
	if (in != pid) {
		pid = in;
		comm = session__comm(r->s, in);
	}

	fputs(comm, r->out);
	for (uint32_t i = nr; ips && i-- > 0;) {
		char *sp;

		frame_text(r, pid, ips[i], i > 0, buf, sizeof(buf));
		/* Folded frames are "func" (or "[unknown]"): drop offset and module,
		 * and keep ';' and ' ' out of names. */
		sp = strpbrk(buf, "+ ");
		if (sp)
			*sp = '\0';
		for (char *p = buf; *p; p++)
			if (*p == ';')
				*p = ':';
		fprintf(r->out, ";%s", buf);
	}
	fprintf(r->out, " %" PRIu64 "\n", weight);
}

/* A JSON string, or null for NULL; at most @len bytes of it (-1: all). */
static void json_str_or_null(FILE *out, const char *str, int len)
{
	char buf[512];

	if (!str) {
		fputs("null", out);
		return;
	}
	if (len >= 0 && (size_t)len < strlen(str)) {
		snprintf(buf, sizeof(buf), "%.*s", len, str);
		str = buf;
	}
	json__str(out, str);
}

/* ,"file":F,"line":N of a --srcline frame: null each when unknown. */
static void json_pos(FILE *out, const struct sym_inline *l)
{
	fputs(",\"file\":", out);
	json_str_or_null(out, l ? l->file : NULL, -1);
	if (l && l->line)
		fprintf(out, ",\"line\":%u", l->line);
	else
		fputs(",\"line\":null", out);
}

/*
 * One frame: {"addr","sym","func","off","module"} and with --srcline
 * "file","line","inlined" (see docs/json-schema.md).  "sym" is the display
 * form ("func+0xoff [module]"), kept next to "addr" where readers of the
 * first layout find it; func drops a symbol version ("@@GLIBC_2.34") as
 * sym does.
 */
static void json_frame(struct report *r, pid_t pid, uint64_t ip, bool is_return, bool first)
{
	struct sym_inline lines[MAX_INLINES];
	size_t nl = frame_lines(r, pid, ip, is_return, lines);
	struct sym_result res;
	char buf[1024];

	frame_sym(r, pid, ip, is_return, &res);
	sym_result__format(&res, buf, sizeof(buf));
	fprintf(r->out, "%s{\"addr\":\"0x%" PRIx64 "\",\"sym\":", first ? "" : ",", ip);
	json__str(r->out, buf);
	fputs(",\"func\":", r->out);
	json_str_or_null(r->out, res.func, res.func ? (int)strcspn(res.func, "@") : -1);
	if (res.func)
		fprintf(r->out, ",\"off\":%" PRIu64, res.offset);
	else
		fputs(",\"off\":null", r->out);
	fputs(",\"module\":", r->out);
	json_str_or_null(r->out, res.module, -1);
	if (r->srcline) {
		json_pos(r->out, nl ? &lines[nl - 1] : NULL);
		fputs(",\"inlined\":[", r->out);
		for (size_t k = 0; k + 1 < nl; k++) {
			fprintf(r->out, "%s{\"func\":", k ? "," : "");
			json_str_or_null(r->out, lines[k].func, -1);
			json_pos(r->out, &lines[k]);
			fputc('}', r->out);
		}
		fputc(']', r->out);
	}
	fputc('}', r->out);
}

static void render_json(struct report *r, pid_t pid, uint32_t stack_id, const char *indent,
			bool addrs)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(r->s), stack_id, &nr);

	(void)indent;
	(void)addrs;
	fputc('[', r->out);
	for (uint32_t i = 0; ips && i < nr; i++)
		json_frame(r, pid, ips[i], i > 0, i == 0);
	fputc(']', r->out);
}

void report__clock(const struct session *s, uint64_t sample_time, char *buf, size_t n)
{
	uint64_t ns = session__realtime(s, sample_time);
	time_t secs = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

/* ,"pauses":N,"paused_ms":F of a JSON object, when back-pressure paused
 * the target: a run that never was reads as before. */
static void json_pauses(const struct report *r)
{
	uint64_t ns, pauses = session__pauses(r->s, &ns);

	if (pauses)
		fprintf(r->out, ",\"pauses\":%" PRIu64 ",\"paused_ms\":%.3f", pauses,
			(double)ns / 1e6);
}

/*
 * "NOTE: N of M stacks were cut short by the SIZE-byte stack copy ...":
 * walks that ended at the copy's end miss their outer frames, so the
 * sites above are split by where the cut fell.  Said before the results,
 * with the size that would copy more.
 */
static void cut_stacks_first(const struct report *r)
{
	uint64_t cut = session__unwind_stops(r->s, UNWIND_STACK_END), walks = 0;
	unsigned int size = session__stack_size(r->s);
	char more[64];

	if (!cut)
		return;
	for (int i = 0; i < UNWIND__COUNT; i++)
		walks += session__unwind_stops(r->s, i);
	if (size && size < SESSION_MAX_STACK_SIZE)
		snprintf(more, sizeof(more), "%u",
			 size * 2 < SESSION_MAX_STACK_SIZE ? size * 2 : SESSION_MAX_STACK_SIZE);
	else
		snprintf(more, sizeof(more), "%s", size ? "" : "SIZE");
	fprintf(r->out, "NOTE: %" PRIu64 " of %" PRIu64 " stacks were cut short by the ", cut, walks);
	if (size)
		fprintf(r->out, "%u-byte ", size);
	fprintf(r->out, "stack copy: their outer frames are missing");
	if (*more)
		fprintf(r->out, "; %s again with --call-graph dwarf,%s to copy more",
			session__replaying(r->s) ? "record" : "run", more);
	fputc('\n', r->out);
}

uint64_t report__lost_first(struct report *r, bool json, bool folded, const char *tool,
			    const char *meaning)
{
	/* What stderr was last told, for every report of this process. */
	static uint64_t warned;
	uint64_t lost = session__lost(r->s);
	char remedy[512], paused[160], lost_n[NUMFMT_LEN];

	/* After the loss warning, which names what to do, and before the
	 * results: why the run took longer, and that nothing is missing. */
	if (!lost) {
		if (!json && !folded && lost__paused(r->s, paused, sizeof(paused)))
			fprintf(r->out, "%s\n", paused);
		if (!json && !folded && session__dwarf(r->s))
			cut_stacks_first(r);
		return 0;
	}
	lost__remedy(r->s, tool, remedy, sizeof(remedy));
	if (json) {
		fprintf(r->out, "{\"type\":\"lost\",\"lost\":%" PRIu64 ",\"message\":", lost);
		json__str(r->out, meaning);
		fprintf(r->out, ",\"remedy\":");
		json__str(r->out, remedy);
		json_pauses(r);
		fprintf(r->out, "%s}\n", r->stamp);
	} else if (!folded) {
		fprintf(r->out, "WARNING: lost %s events: %s; %s\n",
			numfmt__count(lost_n, sizeof(lost_n), lost), meaning, remedy);
		if (lost__paused(r->s, paused, sizeof(paused)))
			fprintf(r->out, "%s\n", paused);
		if (session__dwarf(r->s))
			cut_stacks_first(r);
	}
	if (lost != warned) {
		/* Before the report it precedes, where both go to a terminal. */
		fflush(r->out);
		lost__warn(r->s, tool, lost, meaning);
		warned = lost;
	}
	return lost;
}

void report__footer(struct report *r, bool json)
{
	bool first = true;
	char n[4][NUMFMT_LEN];

	if (json) {
		fprintf(r->out,
			"{\"type\":\"summary\",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"bad_records\":%" PRIu64 ",\"frames\":%" PRIu64
			",\"unknown_frames\":%" PRIu64 ",\"call_graph\":\"%s\"",
			session__samples(r->s), session__lost(r->s), session__bad_records(r->s),
			r->frames, r->unknown, session__dwarf(r->s) ? "dwarf" : "fp");
		if (session__foreign(r->s))
			fprintf(r->out, ",\"foreign\":%" PRIu64, session__foreign(r->s));
		json_pauses(r);
		if (session__dwarf(r->s)) {
			fprintf(r->out, ",\"unwind\":{");
			for (int i = 0; i < UNWIND__COUNT; i++) {
				fputs(i ? "," : "", r->out);
				json__key(r->out, unwind_stop__name(i));
				fprintf(r->out, ":%" PRIu64, session__unwind_stops(r->s, i));
			}
			fputc('}', r->out);
		}
		fprintf(r->out, "%s}\n", r->stamp);
		return;
	}
	/* faultline's own text: counts with separators (numfmt). */
	fprintf(r->out, "%s samples, lost %s events, %s unknown frames of %s%s",
		numfmt__count(n[0], NUMFMT_LEN, session__samples(r->s)),
		numfmt__count(n[1], NUMFMT_LEN, session__lost(r->s)),
		numfmt__count(n[2], NUMFMT_LEN, r->unknown), numfmt__count(n[3], NUMFMT_LEN, r->frames),
		session__bad_records(r->s) ? ", some records malformed" : "");
	/* Ring space other processes took (the PMU rung without the
	 * target's cgroup): said where there was any. */
	if (session__foreign(r->s))
		fprintf(r->out, ", %s samples of other processes dropped",
			numfmt__count(n[0], NUMFMT_LEN, session__foreign(r->s)));
	/* Walks that ended early, by reason: what a short stack is owed to. */
	for (int i = 0; session__dwarf(r->s) && i < UNWIND__COUNT; i++) {
		if (!session__unwind_stops(r->s, i))
			continue;
		fprintf(r->out, "%s%s %s", first ? "; stacks: " : ", ",
			numfmt__count(n[0], NUMFMT_LEN, session__unwind_stops(r->s, i)),
			unwind_stop__name(i));
		first = false;
	}
	fputc('\n', r->out);
}

void report__count_frame(struct report *r, bool named)
{
	r->frames++;
	r->unknown += !named;
}

const char *report__ranked(size_t top)
{
	static char buf[64];

	if (!top)
		return "";
	if (top == 1)
		return ", and of the stack ranked #1 below";
	snprintf(buf, sizeof(buf), ", and of the stacks ranked #1..#%zu below", top);
	return buf;
}

void report__stack(struct report *r, pid_t pid, uint32_t stack_id, const char *indent, bool addrs)
{
	uint64_t layout = hash_bytes(indent, strlen(indent)) ^ (addrs ? 1 : 2);

	print_rendered(r, session__stack_pid(r->s, pid, stack_id), stack_id, layout, render_text,
		       indent, addrs);
}

void report__stack_json(struct report *r, pid_t pid, uint32_t stack_id)
{
	print_rendered(r, session__stack_pid(r->s, pid, stack_id), stack_id, 3, render_json, "",
		       false);
}
