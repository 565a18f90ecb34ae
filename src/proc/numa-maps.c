/*
 * numa-maps: parse /proc/PID/numa_maps (see numa-maps.h).  Calls libc and
 * lib/ (file reading, growth, error buffer) only.
 *
 * The kernel's line (fs/proc/task_mmu.c, show_numa_map) is
 *	START POLICY [file=PATH | heap | stack] [huge] [KEY=N]... [N<node>=N]...
 *	[kernelpagesize_kB=N]
 * with PATH written by seq_path(.., "\n\t= "): a newline, tab, '=' or
 * space in it is "\ooo" (three octal digits), so a line is one mapping and
 * its tokens split on spaces.  A backslash is not escaped, so "\012" read
 * back is a newline even when the name held those four characters: the
 * kernel's text cannot tell them apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/grow.h"
#include "proc/numa-maps.h"

struct numa_maps {
	struct numa_vma *v;
	size_t n, cap;
	size_t bad;
	unsigned int nodes;
};

static const char *const kind_names[NUMA_KINDS] = {
	[NUMA_HUGE] = "Huge", [NUMA_HEAP] = "Heap", [NUMA_STACK] = "Stack",
	[NUMA_PRIVATE] = "Private", [NUMA_FILE] = "File",
};

const char *numa_kind__name(enum numa_kind k)
{
	return (unsigned int)k < NUMA_KINDS ? kind_names[k] : NULL;
}

/* A decimal count of the whole of [s, e): 0, or -1 (empty, not digits,
 * overflow). */
static int parse_u64(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (s == e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

static int parse_hex(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	if (s == e || e - s > 16)
		return -1;
	for (; s < e; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* [s, e) with "\ooo" turned back into its byte; malloc'ed, or NULL. */
static char *unescape(const char *s, const char *e)
{
	char *out = malloc((size_t)(e - s) + 1), *o = out;

	if (!out)
		return NULL;
	while (s < e) {
		if (*s == '\\' && e - s >= 4 && is_octal(s[1]) && is_octal(s[2]) && is_octal(s[3]) &&
		    s[1] <= '3') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

static void vma__fini(struct numa_vma *v)
{
	free(v->path);
	free(v->node);
	free(v->pages);
}

/* N<node>=<pages>: added to @v (a node named twice adds up). */
static int add_node(struct numa_vma *v, const char *key, const char *eq, const char *e)
{
	uint64_t node, pages;
	unsigned int *nn;
	uint64_t *np;

	if (parse_u64(key + 1, eq, &node) || node >= NUMA_MAX_NODES || parse_u64(eq + 1, e, &pages))
		return -EINVAL;
	for (size_t i = 0; i < v->nn; i++)
		if (v->node[i] == node) {
			if (v->pages[i] > UINT64_MAX - pages)
				return -EINVAL;
			v->pages[i] += pages;
			return 0;
		}
	nn = realloc(v->node, (v->nn + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	v->node = nn;
	np = realloc(v->pages, (v->nn + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	v->pages = np;
	v->node[v->nn] = (unsigned int)node;
	v->pages[v->nn++] = pages;
	return 0;
}

/* One token [s, e) of a line after the policy. */
static int parse_token(struct numa_vma *v, const char *s, const char *e)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	size_t klen = eq ? (size_t)(eq - s) : (size_t)(e - s);
	uint64_t x;

#define KEY(name) (klen == sizeof(name) - 1 && !memcmp(s, name, klen))
	if (!eq) {
		if (KEY("heap") && v->kind == NUMA_PRIVATE)
			v->kind = NUMA_HEAP;
		else if (KEY("stack") && v->kind == NUMA_PRIVATE)
			v->kind = NUMA_STACK;
		else if (KEY("huge"))
			v->kind = NUMA_HUGE;
		return 0;	/* another flag of a later kernel */
	}
	if (KEY("file")) {
		if (v->path)
			return -EINVAL;
		v->path = unescape(eq + 1, e);
		if (!v->path)
			return -ENOMEM;
		if (v->kind != NUMA_HUGE)
			v->kind = NUMA_FILE;
		return 0;
	}
	if (s[0] == 'N' && klen > 1 && s[1] >= '0' && s[1] <= '9')
		return add_node(v, s, eq, e);
	if (!KEY("kernelpagesize_kB") && !KEY("anon") && !KEY("dirty") && !KEY("mapped"))
		return 0;	/* mapmax, swapcache, active, writeback, and what comes */
	if (parse_u64(eq + 1, e, &x))
		return -EINVAL;
	if (KEY("kernelpagesize_kB"))
		v->page_kb = x;
	else if (KEY("anon"))
		v->anon = x;
	else if (KEY("dirty"))
		v->dirty = x;
	else
		v->mapped = x;
	return 0;
#undef KEY
}

/* Whether every node's KiB fits a u64, so that the sums can be checked
 * once per line. */
static bool sizes_fit(const struct numa_vma *v)
{
	for (size_t i = 0; i < v->nn; i++)
		if (v->page_kb && v->pages[i] > UINT64_MAX / 4 / v->page_kb)
			return false;
	return true;
}

/* One line [s, e) into @v: 0, -EINVAL (not understood), -ENOMEM. */
static int parse_line(struct numa_vma *v, const char *s, const char *e)
{
	const char *t, *te;
	size_t n;
	int err;

	memset(v, 0, sizeof(*v));
	v->kind = NUMA_PRIVATE;
	te = memchr(s, ' ', (size_t)(e - s));
	if (!te || parse_hex(s, te, &v->start))
		return -EINVAL;
	t = te + 1;
	te = memchr(t, ' ', (size_t)(e - t));
	if (!te)
		te = e;
	n = (size_t)(te - t);
	if (!n)
		return -EINVAL;
	if (n >= sizeof(v->policy))
		n = sizeof(v->policy) - 1;
	memcpy(v->policy, t, n);
	for (t = te; t < e; t = te) {
		while (t < e && *t == ' ')
			t++;
		if (t == e)
			break;
		te = memchr(t, ' ', (size_t)(e - t));
		if (!te)
			te = e;
		if ((err = parse_token(v, t, te)))
			return err;
	}
	return sizes_fit(v) ? 0 : -EINVAL;
}

int numa_maps__parse(const char *text, size_t len, struct numa_maps **out)
{
	struct numa_maps *nm = calloc(1, sizeof(*nm));
	const char *s = text, *end = text + len, *e;
	struct numa_vma v;
	int err = 0;

	*out = NULL;
	if (!nm)
		return -ENOMEM;
	for (; s < end; s = e + 1) {
		e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		if (e == s)
			continue;
		err = parse_line(&v, s, e);
		if (err == -EINVAL) {
			vma__fini(&v);
			nm->bad++;
			err = 0;
			continue;
		}
		if (!err)
			err = GROW_FOR(nm->v, nm->cap, nm->n + 1, 16);
		if (err) {
			vma__fini(&v);
			break;
		}
		for (size_t i = 0; i < v.nn; i++)
			if (v.node[i] + 1 > nm->nodes)
				nm->nodes = v.node[i] + 1;
		nm->v[nm->n++] = v;
	}
	if (err) {
		numa_maps__free(nm);
		return err;
	}
	*out = nm;
	return 0;
}

int numa_maps__read(const char *procfs, pid_t pid, struct numa_maps **out, struct errbuf *eb)
{
	char name[64], *buf = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	snprintf(name, sizeof(name), "%d/numa_maps", (int)pid);
	/* A mapping's line is under 4 KiB (PATH_MAX escaped, four times at
	 * worst, is more: 64 MiB bounds a million mappings of any kind). */
	err = read_proc_file(procfs, name, 64u << 20, &buf, eb);
	if (err)
		return err;
	len = strlen(buf);
	err = numa_maps__parse(buf, len, out);
	free(buf);
	if (err)
		return errbuf__set(eb, err, "cannot parse '%s'", name);
	return 0;
}

void numa_maps__free(struct numa_maps *nm)
{
	if (!nm)
		return;
	for (size_t i = 0; i < nm->n; i++)
		vma__fini(&nm->v[i]);
	free(nm->v);
	free(nm);
}

size_t numa_maps__count(const struct numa_maps *nm)
{
	return nm->n;
}

const struct numa_vma *numa_maps__vma(const struct numa_maps *nm, size_t i)
{
	return &nm->v[i];
}

size_t numa_maps__bad(const struct numa_maps *nm)
{
	return nm->bad;
}

unsigned int numa_maps__nodes(const struct numa_maps *nm)
{
	return nm->nodes;
}

uint64_t numa_vma__pages(const struct numa_vma *v, unsigned int node)
{
	for (size_t i = 0; i < v->nn; i++)
		if (v->node[i] == node)
			return v->pages[i];
	return 0;
}

uint64_t numa_maps__kb(const struct numa_maps *nm, enum numa_kind kind, unsigned int node)
{
	uint64_t kb = 0, add;

	for (size_t i = 0; i < nm->n; i++) {
		if (kind != NUMA_KINDS && nm->v[i].kind != kind)
			continue;
		add = numa_vma__pages(&nm->v[i], node) * nm->v[i].page_kb;
		kb = kb > UINT64_MAX - add ? UINT64_MAX : kb + add;
	}
	return kb;
}

int numa_nodelist__parse(const char *s, uint64_t mask[NUMA_MAX_NODES / 64])
{
	unsigned long a, b;
	char *e;
	bool any = false;

	for (;;) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = strtoul(s, &e, 10);
		b = a;
		if (*e == '-') {
			s = e + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtoul(s, &e, 10);
		}
		if (a > b || b >= NUMA_MAX_NODES)
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			mask[i / 64] |= 1ull << (i % 64);
		any = true;
		s = e;
		if (*s != ',')
			break;
		s++;
	}
	while (*s == '\n' || *s == ' ')
		s++;
	return any && !*s ? 0 : -EINVAL;
}
