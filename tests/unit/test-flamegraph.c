/*
 * test-flamegraph: folded stacks merged into the page's tree (shared
 * prefixes once, values summed per weight on every frame of a stack),
 * FlameGraph's folded lines parsed or refused, and the page: the
 * template around one JSON object in which nothing closes the script,
 * each weight's legend in it, and the chart's series when set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/out/flamegraph.h"
#include "lib/errbuf.h"
#include "check.h"

static const struct flamegraph_weight weights[] = {
	{ "leaked", NULL, "leaked", "bytes", "leaked bytes: held at the end" },
	{ "allocations", "calls", "allocations", "calls", NULL },
};

/* The page @fg writes, NUL-terminated (the caller frees it). */
static char *page(const struct flamegraph *fg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_EQ_U64(flamegraph__write(fg, f), 0);
	fclose(f);
	return buf;
}

/* The JSON the page carries, copied out. */
static char *data_of(const char *html)
{
	const char *open = "<script id=\"data\" type=\"application/json\">";
	const char *a = strstr(html, open), *b;

	if (!a)
		return NULL;
	a += strlen(open);
	b = strstr(a, "</script>");
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

static void test_tree(void)
{
	struct flamegraph *fg;
	uint64_t v1[] = { 3000, 1 }, v2[] = { 1000, 4 }, v3[] = { 0, 5 };
	char *html, *data;

	CHECK_EQ_U64(flamegraph__new("t", weights, 2, &fg), 0);
	CHECK_EQ_U64(flamegraph__add(fg, "prog;main;leak_a", v1), 0);
	CHECK_EQ_U64(flamegraph__add(fg, "prog;main;leak_b", v2), 0);
	CHECK_EQ_U64(flamegraph__add(fg, "prog;main;leak_a", v3), 0);
	CHECK_EQ_U64(flamegraph__stacks(fg), 3);
	html = page(fg);
	data = html ? data_of(html) : NULL;
	/* Children newest first; the page sorts them by name. */
	CHECK_STR(data, "{\"title\":\"t\",\"weights\":[{\"key\":\"leaked\",\"alias\":\"\","
		  "\"label\":\"leaked\",\"unit\":\"bytes\",\"legend\":\"leaked bytes: held at the end\"},"
		  "{\"key\":\"allocations\",\"alias\":\"calls\",\"label\":\"allocations\",\"unit\":"
		  "\"calls\",\"legend\":\"allocations\"}],\"root\":{\"n\":\"all\","
		  "\"v\":[4000,10],\"c\":[{\"n\":\"prog\",\"v\":[4000,10],\"c\":[{\"n\":\"main\","
		  "\"v\":[4000,10],\"c\":[{\"n\":\"leak_b\",\"v\":[1000,4]},{\"n\":\"leak_a\","
		  "\"v\":[3000,6]}]}]}]}}");
	/* The template is whole around it. */
	CHECK(html && !strncmp(html, "<!DOCTYPE html>", 15));
	CHECK(html && strstr(html, "</html>") && !strstr(html, "@FLAMEGRAPH_DATA@"));
	free(data);
	free(html);
	flamegraph__free(fg);
}

static void test_escapes(void)
{
	struct flamegraph *fg;
	uint64_t v[] = { 1, 1 };
	char *html, *data;

	CHECK_EQ_U64(flamegraph__new("a </script> \"b\"", weights, 2, &fg), 0);
	/* A name that would close the script, quotes, a backslash, an empty
	 * frame. */
	CHECK_EQ_U64(flamegraph__add(fg, "x</script><b>;;\"q\\\"", v), 0);
	html = page(fg);
	data = html ? data_of(html) : NULL;
	CHECK(data && !strchr(data, '<'));
	CHECK(data && strstr(data, "\"n\":\"x\\u003c/script>\\u003cb>\""));
	CHECK(data && strstr(data, "\"n\":\"\\\"q\\\\\\\"\""));
	CHECK(data && strstr(data, "\"n\":\"[unknown]\""));
	CHECK(data && strstr(data, "\"title\":\"a \\u003c/script> \\\"b\\\"\""));
	free(data);
	free(html);
	flamegraph__free(fg);
}

static void test_lines(void)
{
	struct flamegraph *fg;
	struct errbuf eb = { "" };
	char *html, *data;

	CHECK_EQ_U64(flamegraph__new("", weights, 2, &fg), 0);
	CHECK_EQ_U64(flamegraph__add_line(fg, "my prog;main;f 12\n", 1, &eb), 0);
	CHECK_EQ_U64(flamegraph__add_line(fg, "my prog;main;g 3", 1, &eb), 0);
	CHECK_EQ_U64(flamegraph__add_line(fg, "my prog;main;g x", 1, &eb), -EINVAL);
	CHECK(strstr(eb.msg, "not a folded stack line") != NULL);
	CHECK_EQ_U64(flamegraph__add_line(fg, "nocount", 1, &eb), -EINVAL);
	CHECK_EQ_U64(flamegraph__add_line(fg, "a 1 2x", 1, &eb), -EINVAL);
	CHECK_EQ_U64(flamegraph__add_line(fg, "a 1", 2, &eb), -EINVAL);
	CHECK_EQ_U64(flamegraph__stacks(fg), 2);
	html = page(fg);
	data = html ? data_of(html) : NULL;
	CHECK(data && strstr(data, "\"root\":{\"n\":\"all\",\"v\":[0,15],\"c\":[{\"n\":\"my prog\""));
	free(data);
	free(html);
	flamegraph__free(fg);
	CHECK_EQ_U64(flamegraph__new("", weights, 0, &fg), -EINVAL);
	flamegraph__free(NULL);
}

/* The chart's points, to the microsecond, before the tree; replaced by a
 * second call. */
static void test_series(void)
{
	struct flamegraph *fg;
	uint64_t v[] = { 1, 0 }, sv[] = { 100, 4096, 50 };
	double t[] = { 0.0000004, 0.25, 1.5 };
	char *html, *data;

	CHECK_EQ_U64(flamegraph__new("s", weights, 2, &fg), 0);
	CHECK_EQ_U64(flamegraph__add(fg, "p;m", v), 0);
	CHECK_EQ_U64(flamegraph__set_series(fg, "x", t, sv, 1, 9, 1), 0);
	CHECK_EQ_U64(flamegraph__set_series(fg, "live <b>", t, sv, 3, 2.0000016, 7), 0);
	html = page(fg);
	data = html ? data_of(html) : NULL;
	CHECK(data && strstr(data, "}],\"series\":{\"label\":\"live \\u003cb>\",\"end\":2.000002,"
			     "\"changes\":7,\"points\":[[0.000000,100],[0.250000,4096],[1.500000,50]]},"
			     "\"root\":{"));
	free(data);
	free(html);
	CHECK_EQ_U64(flamegraph__set_series(fg, "none", t, sv, 0, 0, 0), 0);
	html = page(fg);
	CHECK(html && strstr(html, "\"changes\":0,\"points\":[]}"));
	free(html);
	flamegraph__free(fg);
}

int main(void)
{
	test_tree();
	test_escapes();
	test_lines();
	test_series();
	return check_done("test-flamegraph");
}
