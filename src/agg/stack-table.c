/*
 * stack-table: see stack-table.h.
 *
 * The sites live in a keyed table (lib/keyed.h) by pid << 32 | stack; a
 * per-thread table's, whose triple does not fit a key, by its hash, a
 * collision taking the next key (as pprof.c's tables do).  A sorted view
 * is a copy, so the table goes on taking lookups (leak reports every few
 * seconds from the table it keeps counting into).
 * Calls lib/ only.
 */
#include <errno.h>
#include <stdlib.h>

#include "agg/stack-table.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"

struct stack_table {
	struct keyed *sites;	/* pid << 32 | stack -> a record beginning with a stack_site */
	bool threads;		/* per thread: keyed by the hash of (pid, tid, stack) */
};

static uint64_t site_key(pid_t pid, uint32_t stack)
{
	return (uint64_t)(uint32_t)pid << 32 | stack;
}

static int table_new(size_t site_size, bool threads, struct stack_table **out)
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
	t->threads = threads;
	t->sites = keyed__new(site_size);
	if (!t->sites) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

int stack_table__new(size_t site_size, struct stack_table **out)
{
	return table_new(site_size, false, out);
}

int stack_table__new_threads(size_t site_size, struct stack_table **out)
{
	return table_new(site_size, true, out);
}

bool stack_table__threads(const struct stack_table *t)
{
	return t->threads;
}

void stack_table__free(struct stack_table *t)
{
	if (!t)
		return;
	keyed__free(t->sites);
	free(t);
}

static uint64_t thread_key(pid_t pid, pid_t tid, uint32_t stack)
{
	uint64_t key[3] = { (uint32_t)pid, (uint32_t)tid, stack };

	return hash_bytes(key, sizeof(key));
}

static bool is(const struct stack_site *s, pid_t pid, pid_t tid, uint32_t stack)
{
	return s->pid == pid && s->tid == tid && s->stack == stack;
}

struct stack_site *stack_table__get_tid(struct stack_table *t, pid_t pid, pid_t tid,
					uint32_t stack)
{
	int created = 0;
	struct stack_site *s;

	if (!t->threads) {
		s = keyed__get(t->sites, site_key(pid, stack), &created);
		tid = 0;
	} else {
		for (uint64_t h = thread_key(pid, tid, stack);; h++) {
			s = keyed__get(t->sites, h, &created);
			if (!s || created || is(s, pid, tid, stack))
				break;
		}
	}
	if (s && created) {
		s->pid = pid;
		s->tid = tid;
		s->stack = stack;
	}
	return s;
}

struct stack_site *stack_table__find_tid(const struct stack_table *t, pid_t pid, pid_t tid,
					 uint32_t stack)
{
	struct stack_site *s;

	if (!t->threads)
		return keyed__find(t->sites, site_key(pid, stack));
	for (uint64_t h = thread_key(pid, tid, stack);; h++) {
		s = keyed__find(t->sites, h);
		if (!s || is(s, pid, tid, stack))
			return s;
	}
}

struct stack_site *stack_table__get(struct stack_table *t, pid_t pid, uint32_t stack)
{
	return stack_table__get_tid(t, pid, 0, stack);
}

struct stack_site *stack_table__find(const struct stack_table *t, pid_t pid, uint32_t stack)
{
	return stack_table__find_tid(t, pid, 0, stack);
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
	return stack_table__call_tid(t, pid, 0, stack, size, w);
}

int stack_table__call_tid(struct stack_table *t, pid_t pid, pid_t tid, uint32_t stack,
			  uint64_t size, uint64_t w)
{
	struct stack_site *s = stack_table__get_tid(t, pid, tid, stack);

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

int stack_table__by_process(const struct stack_table *t, struct stack_table **out)
{
	int err = stack_table__new(0, out);

	for (size_t i = 0; i < stack_table__count(t) && !err; i++) {
		const struct stack_site *s = stack_table__at(t, i);
		struct stack_site *p = stack_table__get(*out, s->pid, s->stack);

		if (!p) {
			err = -ENOMEM;
			break;
		}
		p->calls += s->calls;
		p->temporary += s->temporary;
		p->bytes += s->bytes;
		p->peak += s->peak;
		p->leaked += s->leaked;
		p->leaked_blocks += s->leaked_blocks;
	}
	if (err) {
		stack_table__free(*out);
		*out = NULL;
	}
	return err;
}

void stack_table__clear_held(struct stack_table *t)
{
	for (size_t i = 0; i < stack_table__count(t); i++) {
		struct stack_site *s = stack_table__at(t, i);

		s->leaked = 0;
		s->leaked_blocks = 0;
	}
}

uint64_t stack_site__col(const struct stack_site *s, enum stack_col c)
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
		uint64_t kx = stack_site__col(x, keys[i]), ky = stack_site__col(y, keys[i]);

		if (kx != ky)
			return (kx < ky) == o->descending ? 1 : -1;
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
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
