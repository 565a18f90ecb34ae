/*
 * tp-catalog: tracepoint and probe payloads read by field name.
 *
 * The kernel's own format files (events/<sys>/<event>/format) are parsed
 * once with libtraceevent; each field a tool reads is resolved once to an
 * offset/size/signedness, then read per record with a bounds check against
 * the raw payload.  Never a hard-coded offset: layouts differ by kernel.
 */
#ifndef FAULTLINE_EVENT_FIELDS_H
#define FAULTLINE_EVENT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

struct tp_catalog;
struct tp_event;

struct tp_field {
	int offset;
	int size;
	bool is_signed;
	bool is_dynamic;	/* __data_loc: u32 (len << 16 | offset) */
	bool is_relative;	/* __rel_loc: offset from the field's end */
	bool present;
};

/* A catalog of parsed formats under one tracing dir (copied). 0 / -ENOMEM. */
int tp_catalog__new(const char *tracing_dir, struct tp_catalog **out);
void tp_catalog__free(struct tp_catalog *cat);

/*
 * Parse events/<system>/<event>/format (once; later calls return the same
 * handle, owned by the catalog).  -ENOENT when the kernel has no such event,
 * -EINVAL when the format does not parse.
 */
int tp_catalog__load(struct tp_catalog *cat, const char *system, const char *event,
		     struct tp_event **out, struct errbuf *eb);
/* The same from a format's @text (a recording's copy of it: the catalog
 * may have no tracing dir). */
int tp_catalog__load_text(struct tp_catalog *cat, const char *system, const char *event,
			  const char *text, size_t len, struct tp_event **out, struct errbuf *eb);
/* The tracing dir's format file of system:event, malloc'ed in *text
 * (what a recording keeps).  0, -ENOENT, -errno. */
int tp_catalog__read_format(const struct tp_catalog *cat, const char *system, const char *event,
			    char **text, size_t *len);

/* "name=value name=value..." of a payload, as perf script prints it
 * (libtraceevent's formatting), truncated to @n. */
int tp_event__print_fields(const struct tp_event *ev, const void *raw, size_t raw_size,
			   char *buf, size_t n);

/*
 * A tracefs filter expression ("size >= 64 && ptr != 0") evaluated in user
 * space by libtraceevent, on a recorded payload: what the kernel would have
 * kept.  Errors: -EINVAL (the expression does not parse for @ev, detail in
 * @eb), -ENOMEM.
 */
struct tp_filter;
int tp_filter__new(struct tp_catalog *cat, const struct tp_event *ev, const char *expr,
		   struct tp_filter **out, struct errbuf *eb);
bool tp_filter__match(const struct tp_filter *tf, const void *raw, size_t raw_size);
void tp_filter__free(struct tp_filter *tf);

/* The event id perf_event_open wants as config for PERF_TYPE_TRACEPOINT. */
uint64_t tp_event__id(const struct tp_event *ev);
const char *tp_event__name(const struct tp_event *ev);

/* Resolve a field by name.  -ENOENT if this kernel's event lacks it. */
int tp_event__field(const struct tp_event *ev, const char *name, struct tp_field *f);

/* Read an integer field (sign-extended when signed).  -ERANGE when the field
 * lies outside the payload. */
int tp_field__u64(const struct tp_field *f, const void *raw, size_t raw_size, uint64_t *val);
/* A string field (fixed char array or __data_loc): copied, NUL-terminated. */
int tp_field__str(const struct tp_field *f, const void *raw, size_t raw_size, char *buf, size_t n);

#endif
