/*
 * flamegraph: a flame graph as one self-contained HTML page (its style,
 * script and data inline; no network, no library), from folded stacks
 * ("outermost;...;innermost") each with one value per weight (leaked
 * bytes, peak bytes, calls...).  The page (data/flamegraph.html, built
 * into the binary) switches between the weights, searches, zooms on a
 * click, turns into an icicle, and redraws the same data bottom-up (the
 * innermost frames, those that allocated, at the root: heaptrack_gui's
 * bottom-up, speedscope's inverted view); a legend says what the width
 * and the colours mean, and an optional chart under the graph draws a
 * quantity over the run (the heap's live bytes), its peak marked.  Its
 * state is the URL's hash.
 *
 * The stacks are merged into a tree here, frame by frame from the
 * outermost, so the page carries each shared prefix once.  Pure: no
 * session, no printing.
 */
#ifndef FAULTLINE_FLAMEGRAPH_H
#define FAULTLINE_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct errbuf;
struct flamegraph;

struct flamegraph_weight {
	const char *key;	/* in the URL's hash: "leaked" */
	const char *alias;	/* another name the hash accepts ("calls"), or NULL */
	const char *label;	/* on the button: "leaked" */
	const char *unit;	/* "bytes" (shown as B, KiB...) or a count's word */
	const char *legend;	/* what a frame's width is: "leaked bytes: still ..." */
};

/* The HTML template (data/flamegraph.html, generated into
 * src/flamegraph-html.c by Makefile.am). */
extern const char flamegraph_html[];

/*
 * flamegraph__new - an empty graph
 * @title:    the page's title (copied)
 * @weights:  @nweights weights (at most FLAMEGRAPH_MAX_WEIGHTS); the
 *            array and its strings must outlive the graph
 * 0, -EINVAL, -ENOMEM.
 */
#define FLAMEGRAPH_MAX_WEIGHTS 8
int flamegraph__new(const char *title, const struct flamegraph_weight *weights, size_t nweights,
		    struct flamegraph **out);
/* NULL is fine. */
void flamegraph__free(struct flamegraph *fg);

/*
 * flamegraph__add - add a stack
 * @folded:  its frames, outermost first, joined by ';' (stackcollapse's
 *           form, without the count); an empty frame is "[unknown]"
 * @values:  one value per weight, added to every frame of the stack
 * 0, -ENOMEM.
 */
int flamegraph__add(struct flamegraph *fg, const char *folded, const uint64_t *values);

/*
 * flamegraph__add_line - add one line of FlameGraph's folded form,
 * "frame;frame;... COUNT", to weight @weight (the others get 0)
 * 0, -EINVAL (not such a line: the message in @eb), -ENOMEM.
 */
int flamegraph__add_line(struct flamegraph *fg, const char *line, size_t weight,
			 struct errbuf *eb);

/* Number of stacks added. */
size_t flamegraph__stacks(const struct flamegraph *fg);

/*
 * flamegraph__set_series - the chart under the graph: a quantity over the
 * run, drawn as steps from 0 at 0 s through each point to @end_s
 * @label:   what it is ("live heap bytes"), on its axis
 * @t_s:     @n times, in seconds from the start of the run, in order
 * @v:       the value from each time on, in bytes
 * @changes: how many changes the points stand for (said under the chart)
 * The arrays are copied; a second call replaces the first.  0, -ENOMEM.
 */
int flamegraph__set_series(struct flamegraph *fg, const char *label, const double *t_s,
			   const uint64_t *v, size_t n, double end_s, uint64_t changes);

/* Write the page to @out.  0, -EIO. */
int flamegraph__write(const struct flamegraph *fg, FILE *out);

#endif
