/*
 * flamegraph: folded stacks with values per weight -> one HTML page.
 *
 * The stacks become a tree of frames (a child is found by a hash of its
 * parent and its name, so adding a stack costs its depth, whatever the
 * fan-out), written into the page as JSON, the page's script laying it
 * out.  Writing the tree rather than the stacks keeps the page small: a
 * gcc run's 40k allocation stacks share most of their frames.  Inside the
 * <script> element '<' is written \u003c, so no name can close it.
 *
 * The series under the graph is written as points [seconds, value], the
 * seconds to the microsecond ("%.6f", as faultline heap --json writes
 * its peak's time), so the page's peak reads as heap's does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/out/flamegraph.h"
#include "lib/errbuf.h"
#include "lib/grow.h"
#include "lib/hashmap.h"

#define NO_NODE UINT32_MAX

struct node {
	char *name;
	uint32_t parent, child, sibling;	/* first child, next sibling */
	uint64_t v[FLAMEGRAPH_MAX_WEIGHTS];
};

struct flamegraph {
	char *title;
	const struct flamegraph_weight *weights;
	size_t nweights;
	struct node *nodes;	/* [0] is the root, "all" */
	size_t nnodes, cap;
	struct hashmap *kids;	/* hash(parent, name) (+1 per collision) -> index */
	size_t nstacks;
	/* flamegraph__set_series; label NULL: no chart */
	char *series_label;
	double *series_t, series_end;
	uint64_t *series_v, series_changes;
	size_t series_n;
};

int flamegraph__new(const char *title, const struct flamegraph_weight *weights, size_t nweights,
		    struct flamegraph **out)
{
	struct flamegraph *fg;

	*out = NULL;
	if (!nweights || nweights > FLAMEGRAPH_MAX_WEIGHTS)
		return -EINVAL;
	fg = calloc(1, sizeof(*fg));
	if (!fg)
		return -ENOMEM;
	fg->weights = weights;
	fg->nweights = nweights;
	fg->title = strdup(title ? title : "");
	fg->kids = hashmap__new();
	if (!fg->title || !fg->kids || GROW_FOR(fg->nodes, fg->cap, 1, 256)) {
		flamegraph__free(fg);
		return -ENOMEM;
	}
	fg->nodes[0] = (struct node){ .name = strdup("all"), .parent = NO_NODE, .child = NO_NODE,
				      .sibling = NO_NODE };
	if (!fg->nodes[0].name) {
		flamegraph__free(fg);
		return -ENOMEM;
	}
	fg->nnodes = 1;
	*out = fg;
	return 0;
}

void flamegraph__free(struct flamegraph *fg)
{
	if (!fg)
		return;
	for (size_t i = 0; i < fg->nnodes; i++)
		free(fg->nodes[i].name);
	free(fg->nodes);
	hashmap__free(fg->kids);
	free(fg->series_label);
	free(fg->series_t);
	free(fg->series_v);
	free(fg->title);
	free(fg);
}

/* The child @name (@len bytes) of @parent, made if new: its index, or
 * NO_NODE when out of memory. */
static uint32_t child_of(struct flamegraph *fg, uint32_t parent, const char *name, size_t len)
{
	uint64_t h = hash_bytes(name, len) ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ULL), v;
	struct node *n;

	/* Open addressing over the hash: the next key on a collision. */
	for (;; h++) {
		if (!hashmap__get(fg->kids, h, &v))
			break;
		n = &fg->nodes[v];
		if (n->parent == parent && strlen(n->name) == len && !memcmp(n->name, name, len))
			return (uint32_t)v;
	}
	if (fg->nnodes >= NO_NODE || GROW_FOR(fg->nodes, fg->cap, fg->nnodes + 1, 256))
		return NO_NODE;
	n = &fg->nodes[fg->nnodes];
	*n = (struct node){ .parent = parent, .child = NO_NODE,
			    .sibling = fg->nodes[parent].child };
	n->name = len ? strndup(name, len) : strdup("[unknown]");
	if (!n->name || hashmap__set(fg->kids, h, fg->nnodes)) {
		free(n->name);
		return NO_NODE;
	}
	fg->nodes[parent].child = (uint32_t)fg->nnodes;
	return (uint32_t)fg->nnodes++;
}

int flamegraph__add(struct flamegraph *fg, const char *folded, const uint64_t *values)
{
	uint32_t at = 0;
	const char *p = folded;

	for (size_t w = 0; w < fg->nweights; w++)
		fg->nodes[0].v[w] += values[w];
	while (*p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		at = child_of(fg, at, p, len);
		if (at == NO_NODE)
			return -ENOMEM;
		for (size_t w = 0; w < fg->nweights; w++)
			fg->nodes[at].v[w] += values[w];
		p += len;
		if (*p == ';')
			p++;
	}
	fg->nstacks++;
	return 0;
}

int flamegraph__add_line(struct flamegraph *fg, const char *line, size_t weight,
			 struct errbuf *eb)
{
	uint64_t values[FLAMEGRAPH_MAX_WEIGHTS] = { 0 };
	const char *sp = strrchr(line, ' ');
	char *stack, *end;
	int err;

	if (weight >= fg->nweights)
		return errbuf__set(eb, -EINVAL, "no weight %zu", weight);
	if (!sp || sp == line || sp[1] < '0' || sp[1] > '9')
		return errbuf__set(eb, -EINVAL, "not a folded stack line: '%.80s'", line);
	errno = 0;
	values[weight] = strtoull(sp + 1, &end, 10);
	if (errno || (*end && *end != '\n'))
		return errbuf__set(eb, -EINVAL, "not a folded stack line: '%.80s'", line);
	stack = strndup(line, (size_t)(sp - line));
	if (!stack)
		return -ENOMEM;
	err = flamegraph__add(fg, stack, values);
	free(stack);
	return err;
}

size_t flamegraph__stacks(const struct flamegraph *fg)
{
	return fg->nstacks;
}

int flamegraph__set_series(struct flamegraph *fg, const char *label, const double *t_s,
			   const uint64_t *v, size_t n, double end_s, uint64_t changes)
{
	char *l = strdup(label);
	double *t = malloc((n ? n : 1) * sizeof(*t));
	uint64_t *vv = malloc((n ? n : 1) * sizeof(*vv));

	if (!l || !t || !vv) {
		free(l);
		free(t);
		free(vv);
		return -ENOMEM;
	}
	if (n) {
		memcpy(t, t_s, n * sizeof(*t));
		memcpy(vv, v, n * sizeof(*vv));
	}
	free(fg->series_label);
	free(fg->series_t);
	free(fg->series_v);
	fg->series_label = l;
	fg->series_t = t;
	fg->series_v = vv;
	fg->series_n = n;
	fg->series_end = end_s;
	fg->series_changes = changes;
	return 0;
}

/* A JSON string, '<' escaped so that nothing closes the script element. */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == '<')
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void write_node(const struct flamegraph *fg, uint32_t i, FILE *out)
{
	const struct node *n = &fg->nodes[i];

	fputs("{\"n\":", out);
	json_str(out, n->name);
	fputs(",\"v\":[", out);
	for (size_t w = 0; w < fg->nweights; w++)
		fprintf(out, "%s%" PRIu64, w ? "," : "", n->v[w]);
	fputs("]", out);
	if (n->child != NO_NODE) {
		fputs(",\"c\":[", out);
		for (uint32_t c = n->child; c != NO_NODE; c = fg->nodes[c].sibling) {
			write_node(fg, c, out);
			if (fg->nodes[c].sibling != NO_NODE)
				fputc(',', out);
		}
		fputs("]", out);
	}
	fputs("}", out);
}

static void write_series(const struct flamegraph *fg, FILE *out)
{
	fputs(",\"series\":{\"label\":", out);
	json_str(out, fg->series_label);
	fprintf(out, ",\"end\":%.6f,\"changes\":%" PRIu64 ",\"points\":[", fg->series_end,
		fg->series_changes);
	for (size_t i = 0; i < fg->series_n; i++)
		fprintf(out, "%s[%.6f,%" PRIu64 "]", i ? "," : "", fg->series_t[i], fg->series_v[i]);
	fputs("]}", out);
}

int flamegraph__write(const struct flamegraph *fg, FILE *out)
{
	static const char mark[] = "@FLAMEGRAPH_DATA@";
	const char *at = strstr(flamegraph_html, mark);

	if (!at)
		return -EINVAL;
	fwrite(flamegraph_html, 1, (size_t)(at - flamegraph_html), out);
	fputs("{\"title\":", out);
	json_str(out, fg->title);
	fputs(",\"weights\":[", out);
	for (size_t w = 0; w < fg->nweights; w++) {
		const struct flamegraph_weight *fw = &fg->weights[w];

		fputs(w ? ",{\"key\":" : "{\"key\":", out);
		json_str(out, fw->key);
		fputs(",\"alias\":", out);
		json_str(out, fw->alias ? fw->alias : "");
		fputs(",\"label\":", out);
		json_str(out, fw->label);
		fputs(",\"unit\":", out);
		json_str(out, fw->unit);
		fputs(",\"legend\":", out);
		json_str(out, fw->legend ? fw->legend : fw->label);
		fputs("}", out);
	}
	fputs("]", out);
	if (fg->series_label)
		write_series(fg, out);
	fputs(",\"root\":", out);
	write_node(fg, 0, out);
	fputs("}", out);
	fputs(at + sizeof(mark) - 1, out);
	return ferror(out) ? -EIO : 0;
}
