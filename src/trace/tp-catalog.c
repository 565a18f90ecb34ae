/*
 * tp-catalog: libtraceevent format parsing, field lookup, bounded reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "trace/tp-catalog.h"
#include "lib/file.h"

struct tp_event {
	struct tep_event *tep_ev;
	char name[128];
};

struct tp_catalog {
	char *dir;
	struct tep_handle *tep;
	struct tp_event **events;
	size_t n;
};

int tp_catalog__new(const char *tracing_dir, struct tp_catalog **out)
{
	struct tp_catalog *cat = calloc(1, sizeof(*cat));

	if (!cat)
		return -ENOMEM;
	cat->dir = strdup(tracing_dir);
	cat->tep = tep_alloc();
	if (!cat->dir || !cat->tep) {
		tp_catalog__free(cat);
		return -ENOMEM;
	}
	/* Formats come from the running kernel: host byte order and long size. */
	tep_set_file_bigendian(cat->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(cat->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(cat->tep, sizeof(long));
	*out = cat;
	return 0;
}

void tp_catalog__free(struct tp_catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->n; i++)
		free(cat->events[i]);
	free(cat->events);
	if (cat->tep)
		tep_free(cat->tep);
	free(cat->dir);
	free(cat);
}

/* The catalog's entry for a parsed tep event (made on first use). */
static int entry_of(struct tp_catalog *cat, struct tep_event *tev, const char *system,
		    const char *event, struct tp_event **out)
{
	struct tp_event *ev, **nv;

	for (size_t i = 0; i < cat->n; i++) {
		if (cat->events[i]->tep_ev == tev) {
			*out = cat->events[i];
			return 0;
		}
	}
	ev = calloc(1, sizeof(*ev));
	nv = realloc(cat->events, (cat->n + 1) * sizeof(*nv));
	if (!ev || !nv) {
		free(ev);
		if (nv)
			cat->events = nv;
		return -ENOMEM;
	}
	cat->events = nv;
	ev->tep_ev = tev;
	snprintf(ev->name, sizeof(ev->name), "%s:%s", system, event);
	cat->events[cat->n++] = ev;
	*out = ev;
	return 0;
}

/* A tracefs format file is printable ASCII, tabs and newlines; libtraceevent
 * 1.7's parser crashed (a NULL strcmp) on a recording's format text with
 * other bytes in a field's type (tests/fuzz/fuzz-recfile's replay found
 * it), so those are refused before it sees them. */
static bool format_text_ok(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c > 0x7e)
			return false;
	}
	return true;
}

int tp_catalog__load_text(struct tp_catalog *cat, const char *system, const char *event,
			  const char *text, size_t len, struct tp_event **out, struct errbuf *eb)
{
	struct tep_event *tev = tep_find_event_by_name(cat->tep, system, event);

	if (!tev && !format_text_ok(text, len))
		return errbuf__set(eb, -EINVAL, "the format of '%s:%s' is not a tracefs format "
				   "text (bytes other than printable ASCII)", system, event);
	if (!tev) {
		if (tep_parse_event(cat->tep, text, len, system) != TEP_ERRNO__SUCCESS)
			return errbuf__set(eb, -EINVAL, "cannot parse the format of '%s:%s'", system,
					   event);
		tev = tep_find_event_by_name(cat->tep, system, event);
		if (!tev)
			return errbuf__set(eb, -EINVAL, "format of '%s:%s' names another event",
					   system, event);
	}
	return entry_of(cat, tev, system, event, out);
}

int tp_catalog__load(struct tp_catalog *cat, const char *system, const char *event,
		     struct tp_event **out, struct errbuf *eb)
{
	struct tep_event *tev;
	char path[4096], *buf = NULL;
	size_t len = 0;
	int err;

	tev = tep_find_event_by_name(cat->tep, system, event);
	if (tev)
		return entry_of(cat, tev, system, event, out);
	err = tp_catalog__read_format(cat, system, event, &buf, &len);
	if (err == -ENOENT)
		return errbuf__set(eb, err, "this kernel has no event '%s:%s'", system, event);
	if (err) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", cat->dir, system, event);
		return errbuf__set(eb, err, "cannot read '%s': %s", path, strerror(-err));
	}
	err = tp_catalog__load_text(cat, system, event, buf, len, out, eb);
	free(buf);
	return err;
}

int tp_catalog__read_format(const struct tp_catalog *cat, const char *system, const char *event,
			    char **text, size_t *len)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", cat->dir ? cat->dir : "",
		     system, event) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_file(path, 1 << 20, text, len);
}

int tp_event__print_fields(const struct tp_event *ev, const void *raw, size_t raw_size,
			   char *buf, size_t n)
{
	struct trace_seq seq;

	if (!n)
		return -EINVAL;
	trace_seq_init(&seq);
	tep_print_fields(&seq, (void *)raw, (int)raw_size, ev->tep_ev);
	trace_seq_terminate(&seq);
	snprintf(buf, n, "%s", seq.buffer ? seq.buffer : "");
	trace_seq_destroy(&seq);
	return 0;
}

/* ---- filters, for replays: the kernel's filter syntax, in user space ---- */

struct tp_filter {
	struct tep_event_filter *f;
};

int tp_filter__new(struct tp_catalog *cat, const struct tp_event *ev, const char *expr,
		   struct tp_filter **out, struct errbuf *eb)
{
	struct tp_filter *tf = calloc(1, sizeof(*tf));
	char spec[1024];
	enum tep_errno ret = TEP_ERRNO__MEM_ALLOC_FAILED;

	*out = NULL;
	if (!tf)
		return -ENOMEM;
	tf->f = tep_filter_alloc(cat->tep);
	snprintf(spec, sizeof(spec), "%s/%s:%s", ev->tep_ev->system, ev->tep_ev->name, expr);
	if (!tf->f || (ret = tep_filter_add_filter_str(tf->f, spec)) < 0) {
		char msg[256] = "";

		if (tf->f)
			tep_filter_strerror(tf->f, ret, msg, sizeof(msg));
		tp_filter__free(tf);
		return errbuf__set(eb, -EINVAL, "cannot apply filter '%s' to '%s': %s", expr,
				   ev->name, msg[0] ? msg : "out of memory");
	}
	*out = tf;
	return 0;
}

bool tp_filter__match(const struct tp_filter *tf, const void *raw, size_t raw_size)
{
	struct tep_record rec = { .data = (void *)raw, .size = (int)raw_size };

	return tep_filter_match(tf->f, &rec) == TEP_ERRNO__FILTER_MATCH;
}

void tp_filter__free(struct tp_filter *tf)
{
	if (!tf)
		return;
	if (tf->f)
		tep_filter_free(tf->f);
	free(tf);
}

uint64_t tp_event__id(const struct tp_event *ev)
{
	return (uint64_t)ev->tep_ev->id;
}

const char *tp_event__name(const struct tp_event *ev)
{
	return ev->name;
}

int tp_event__field(const struct tp_event *ev, const char *name, struct tp_field *f)
{
	struct tep_format_field *tf = tep_find_field(ev->tep_ev, name);

	memset(f, 0, sizeof(*f));
	if (!tf)
		return -ENOENT;
	f->offset = tf->offset;
	f->size = tf->size;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->is_dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->is_relative = tf->flags & TEP_FIELD_IS_RELATIVE;
	f->present = true;
	return 0;
}

static bool in_bounds(int off, int size, size_t raw_size)
{
	return off >= 0 && size >= 0 && (size_t)off + (size_t)size <= raw_size;
}

int tp_field__u64(const struct tp_field *f, const void *raw, size_t raw_size, uint64_t *val)
{
	const unsigned char *p = (const unsigned char *)raw + f->offset;

	if (!f->present || !in_bounds(f->offset, f->size, raw_size))
		return -ERANGE;
	switch (f->size) {
	case 1: { int8_t v; memcpy(&v, p, 1); *val = f->is_signed ? (uint64_t)(int64_t)v : (uint8_t)v; break; }
	case 2: { int16_t v; memcpy(&v, p, 2); *val = f->is_signed ? (uint64_t)(int64_t)v : (uint16_t)v; break; }
	case 4: { int32_t v; memcpy(&v, p, 4); *val = f->is_signed ? (uint64_t)(int64_t)v : (uint32_t)v; break; }
	case 8: memcpy(val, p, 8); break;
	default: return -ERANGE;
	}
	return 0;
}

int tp_field__str(const struct tp_field *f, const void *raw, size_t raw_size, char *buf, size_t n)
{
	int off = f->offset, len = f->size;
	size_t copy;

	if (!f->present || !n || !in_bounds(f->offset, f->size, raw_size))
		return -ERANGE;
	if (f->is_dynamic) {
		uint32_t loc;

		memcpy(&loc, (const unsigned char *)raw + f->offset, 4);
		off = (int)(loc & 0xffff);
		len = (int)(loc >> 16);
		if (f->is_relative)
			off += f->offset + f->size;
		if (!in_bounds(off, len, raw_size))
			return -ERANGE;
	}
	copy = strnlen((const char *)raw + off, (size_t)len);
	if (copy >= n)
		copy = n - 1;
	memcpy(buf, (const char *)raw + off, copy);
	buf[copy] = '\0';
	return 0;
}
