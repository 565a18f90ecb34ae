/*
 * stack-table: see stack-table.h.
 *
 * The sites live in a keyed table (lib/keyed.h) by pid << 32 | stack; a
 * sorted view is a copy, so the table goes on taking lookups (leak
 * reports every few seconds from the table it keeps counting into).
 * Calls lib/ only.
 */
#include <errno.h>
#include <stdlib.h>

#include "agg/stack-table.h"
#include "lib/keyed.h"

struct stack_table {
	struct keyed *sites;	/* pid << 32 | stack -> a record beginning with a stack_site */
};

static uint64_t site_key(pid_t pid, uint32_t stack)
{
	return (uint64_t)(uint32_t)pid << 32 | stack;
}

int stack_table__new(size_t site_size, struct stack_table **out)
{
	struct stack_table *t;

	*out = NULL;
	if (!site_size)
		site_size = sizeof(struct stack_site);
	if (site_size < sizeof(struct stack_site))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->sites = keyed__new(site_size);
	if (!t->sites) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void stack_table__free(struct stack_table *t)
{
	if (!t)
		return;
	keyed__free(t->sites);
	free(t);
}

struct stack_site *stack_table__get(struct stack_table *t, pid_t pid, uint32_t stack)
{
	int created = 0;
	struct stack_site *s = keyed__get(t->sites, site_key(pid, stack), &created);

	if (s && created) {
		s->pid = pid;
		s->stack = stack;
	}
	return s;
}

struct stack_site *stack_table__find(const struct stack_table *t, pid_t pid, uint32_t stack)
{
	return keyed__find(t->sites, site_key(pid, stack));
}

size_t stack_table__count(const struct stack_table *t)
{
	return keyed__count(t->sites);
}

struct stack_site *stack_table__at(const struct stack_table *t, size_t i)
{
	return keyed__at(t->sites, i);
}

int stack_table__call(struct stack_table *t, pid_t pid, uint32_t stack, uint64_t size,
		      uint64_t w)
{
	struct stack_site *s = stack_table__get(t, pid, stack);

	if (!s)
		return -ENOMEM;
	s->calls += w;
	s->bytes += size * w;
	return 0;
}

int stack_table__hold(struct stack_table *t, pid_t pid, uint32_t stack, uint64_t size,
		      uint64_t w)
{
	struct stack_site *s = stack_table__get(t, pid, stack);

	if (!s)
		return -ENOMEM;
	s->leaked += size * w;
	s->leaked_blocks += w;
	return 0;
}

void stack_table__clear_held(struct stack_table *t)
{
	for (size_t i = 0; i < stack_table__count(t); i++) {
		struct stack_site *s = stack_table__at(t, i);

		s->leaked = 0;
		s->leaked_blocks = 0;
	}
}

static uint64_t col(const struct stack_site *s, enum stack_col c)
{
	switch (c) {
	case STACK_CALLS:
		return s->calls;
	case STACK_TEMPORARY:
		return s->temporary;
	case STACK_BYTES:
		return s->bytes;
	case STACK_PEAK:
		return s->peak;
	case STACK_LEAKED:
		return s->leaked;
	case STACK_LEAKED_BLOCKS:
		return s->leaked_blocks;
	}
	return 0;
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
	const struct stack_site *x = a, *y = b;
	const struct stack_order *o = ctx;
	enum stack_col keys[2] = { o->by, o->then };

	for (int i = 0; i < 2; i++) {
		uint64_t kx = col(x, keys[i]), ky = col(y, keys[i]);

		if (kx != ky)
			return (kx < ky) == o->descending ? 1 : -1;
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int stack_table__sorted(const struct stack_table *t, const struct stack_order *o,
			struct stack_site **out, size_t *n)
{
	size_t count = stack_table__count(t), k = 0;
	struct stack_site *v = malloc((count ? count : 1) * sizeof(*v));

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		const struct stack_site *s = stack_table__at(t, i);

		if (!o->held_only || s->leaked_blocks)
			v[k++] = *s;
	}
	if (k > 1)
		qsort_r(v, k, sizeof(*v), cmp_site, (void *)o);
	*out = v;
	*n = k;
	return 0;
}
