/*
 * test-report: src/cmd/report.c's output, byte for byte, on a replay session
 * of a recording made here (no root, no kernel): JSON string escapes;
 * stacks of a process with no mappings (every frame "[unknown]"), in
 * BCC's text layout with and without addresses, as FlameGraph folded
 * lines (outermost first) and as JSON; the "[stack information lost]"
 * line of an empty stack; the frame and unknown-frame counts the footer
 * reports, which a stack printed again from the rendering cache adds to
 * again; the text and JSON footers; HH:MM:SS from the recording's clock.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "check.h"
#include "lib/errbuf.h"
#include "trace/recfile.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "stack/stackdb.h"

/* Everything printed to a memstream, as a string. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f)
		abort();
}

/* Closes the stream; the text stays in c->buf until cap_free. */
static const char *cap_text(struct capture *c)
{
	fclose(c->f);
	c->f = NULL;
	return c->buf ? c->buf : "";
}

static void cap_free(struct capture *c)
{
	free(c->buf);
	c->buf = NULL;
}

static void test_json_str(void)
{
	struct capture c;

	cap_open(&c);
	json__str(c.f, "plain");
	fputc(' ', c.f);
	json__str(c.f, "q\"b\\s/");
	fputc(' ', c.f);
	json__str(c.f, "\n\t\x01\x1f");
	fputc(' ', c.f);
	json__str(c.f, "\x7f\xc3\xa9");	/* DEL and UTF-8 pass through */
	fputc(' ', c.f);
	json__str(c.f, "");
	CHECK_STR(cap_text(&c), "\"plain\" \"q\\\"b\\\\s/\" \"\\n\\t\\u0001\\u001f\" "
		  "\"\x7f\xc3\xa9\" \"\"");
	cap_free(&c);

	/* Keys made of names: snake_case whatever the name's separators. */
	cap_open(&c);
	json__key(c.f, "stack-copy-end");
	fputc(' ', c.f);
	json__key(c.f, "two words");
	fputc(' ', c.f);
	json__key(c.f, "snake_case");
	CHECK_STR(cap_text(&c), "\"stack_copy_end\" \"two_words\" \"snake_case\"");
	cap_free(&c);
}

#define START_MONO 1000000000000ull		/* 1000 s of CLOCK_MONOTONIC */
#define START_REAL (((5 * 3600ull) + 7 * 60 + 9) * 1000000000ull)	/* 05:07:09 UTC, 1 Jan 1970 */

static int make_recording(const char *path)
{
	struct recwriter *w = NULL;
	struct errbuf eb = { { 0 } };
	char mono[32], real[32];
	int err;

	snprintf(mono, sizeof(mono), "%llu", START_MONO);
	snprintf(real, sizeof(real), "%llu", START_REAL);
	err = recwriter__open(path, &w, &eb);
	if (!err)
		err = recwriter__meta(w, "start_mono_ns", mono);
	if (!err)
		err = recwriter__meta(w, "start_real_ns", real);
	if (!err)
		err = recwriter__end(w, &(struct rec_end){ .status = -1 });
	if (w && recwriter__close(w, &eb) && !err)
		err = -1;
	if (err)
		fprintf(stderr, "test-report: cannot write %s: %s\n", path, errbuf__str(&eb, err));
	return err;
}

static void test_stacks(struct session *s)
{
	/* Innermost first, as the kernel gives them. */
	static const uint64_t ips[3] = { 0x1000, 0x2000, 0x3000 };
	struct report r;
	struct capture c;
	uint32_t id = 0, empty = 0;

	CHECK_EQ_U64(stackdb__intern(session__stackdb(s), 0, ips, 3, &id), 0);
	CHECK_EQ_U64(stackdb__intern(session__stackdb(s), 0, ips, 0, &empty), 0);

	cap_open(&c);
	report__init(&r, s, c.f, false);
	report__stack(&r, 4242, id, "\t", false);
	CHECK_EQ_U64(r.frames, 3);
	CHECK_EQ_U64(r.unknown, 3);
	report__stack(&r, 4242, id, "\t\t", true);
	CHECK_EQ_U64(r.frames, 6);
	/* The same again, from the rendering cache: same text, counted again. */
	report__stack(&r, 4242, id, "\t", false);
	CHECK_EQ_U64(r.frames, 9);
	CHECK_EQ_U64(r.unknown, 9);
	report__stack(&r, 4242, empty, "  ", false);
	report__fini(&r);
	CHECK_STR(cap_text(&c),
		  "\t[unknown]\n\t[unknown]\n\t[unknown]\n"
		  "\t\t0x0000000000001000\t[unknown]\n"
		  "\t\t0x0000000000002000\t[unknown]\n"
		  "\t\t0x0000000000003000\t[unknown]\n"
		  "\t[unknown]\n\t[unknown]\n\t[unknown]\n"
		  "  [stack information lost]\n");
	cap_free(&c);

	cap_open(&c);
	report__init(&r, s, c.f, false);
	report__folded(&r, 4242, "demo", id, 1234);
	report__stack_json(&r, 4242, id);
	fputc('\n', c.f);
	report__stack_json(&r, 4242, empty);
	fputc('\n', c.f);
	report__fini(&r);
	CHECK_STR(cap_text(&c),
		  "demo;[unknown];[unknown];[unknown] 1234\n"
		  "[{\"addr\":\"0x1000\",\"sym\":\"[unknown]\",\"func\":null,\"off\":null,"
		  "\"module\":null},"
		  "{\"addr\":\"0x2000\",\"sym\":\"[unknown]\",\"func\":null,\"off\":null,"
		  "\"module\":null},"
		  "{\"addr\":\"0x3000\",\"sym\":\"[unknown]\",\"func\":null,\"off\":null,"
		  "\"module\":null}]\n"
		  "[]\n");
	cap_free(&c);
}

static void test_footer_clock(struct session *s)
{
	struct report r;
	struct capture c;
	char buf[16];

	cap_open(&c);
	report__init(&r, s, c.f, false);
	r.frames = 12;
	r.unknown = 5;
	report__footer(&r, false);
	report__footer(&r, true);
	/* Counts with thousands separators in the text (numfmt), raw in JSON. */
	r.frames = 1234567;
	r.unknown = 1000;
	report__footer(&r, false);
	report__footer(&r, true);
	report__fini(&r);
	CHECK_STR(cap_text(&c),
		  "0 samples, lost 0 events, 5 unknown frames of 12\n"
		  "{\"type\":\"summary\",\"samples\":0,\"lost\":0,\"bad_records\":0,\"frames\":12,"
		  "\"unknown_frames\":5,\"call_graph\":\"fp\"}\n"
		  "0 samples, lost 0 events, 1,000 unknown frames of 1,234,567\n"
		  "{\"type\":\"summary\",\"samples\":0,\"lost\":0,\"bad_records\":0,"
		  "\"frames\":1234567,\"unknown_frames\":1000,\"call_graph\":\"fp\"}\n");
	cap_free(&c);

	/* Two seconds and a bit into the recording: its wall clock. */
	report__clock(s, START_MONO + 2500000000ull, buf, sizeof(buf));
	CHECK_STR(buf, "05:07:11");
}

int main(void)
{
	char path[] = "/tmp/test-report.XXXXXX";
	struct session_opts o = { 0 };
	struct replay_opts ro = { 0 };
	struct errbuf eb = { { 0 } };
	struct session *s = NULL;
	int fd, err;

	setenv("TZ", "UTC", 1);
	tzset();
	test_json_str();

	fd = mkstemp(path);
	if (fd < 0 || make_recording(path)) {
		fprintf(stderr, "test-report: no recording to replay\n");
		return 99;
	}
	close(fd);
	ro.path = path;
	err = session__new_replay(&o, &ro, &s, &eb);
	CHECK_EQ_U64(err, 0);
	if (err)
		fprintf(stderr, "test-report: replay: %s\n", errbuf__str(&eb, err));
	if (s) {
		test_stacks(s);
		test_footer_clock(s);
		session__free(s);
	}
	unlink(path);
	return check_done("test-report");
}
