/*
 * test-pprof: a profile made by pprof.c, gunzipped with zlib and decoded
 * with protobuf-c's generated unpack (the reader's side of the same
 * profile.proto), holds what was put in: the string table starting with
 * "", the sample types and the default one, the mappings with their
 * build-ids in hex, locations with their lines (inlined function first),
 * functions stored once, samples with their values and labels (number
 * and string labels, their keys and strings string table indexes); and
 * what is stored once is: a repeated string, mapping, function or
 * location.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cmd/out/pprof.h"
#include "proto/profile.pb-c.h"
#include "check.h"

/* @buf (gzip) inflated into *@out. */
static int gunzip(const void *buf, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = 4096;
	uint8_t *o = malloc(cap);
	int rc;

	if (!o || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(o);
		return -1;
	}
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		if (z.total_out == cap) {
			uint8_t *n = realloc(o, cap * 2);

			if (!n)
				break;
			o = n;
			cap *= 2;
		}
		z.next_out = o + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK);
	inflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(o);
		return -1;
	}
	*out = o;
	*outlen = z.total_out;
	return 0;
}

static const char *s_at(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "(out of range)";
}

static size_t count_string(const Perftools__Profiles__Profile *pr, const char *s)
{
	size_t n = 0;

	for (size_t i = 0; i < pr->n_string_table; i++)
		n += !strcmp(pr->string_table[i], s);
	return n;
}

static const Perftools__Profiles__Function *func_of(const Perftools__Profiles__Profile *pr,
						    uint64_t id)
{
	for (size_t i = 0; i < pr->n_function; i++)
		if (pr->function[i]->id == id)
			return pr->function[i];
	return NULL;
}

static void test_heap_profile(void)
{
	static const struct pprof_value_type types[] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};
	static const uint8_t bid[] = { 0x81, 0xb6, 0x0a, 0xb4, 0x2b };
	struct pprof *p = NULL;
	struct pprof_map exe = { 0x1000, 0x2000, 0x1000, "/usr/bin/prog", bid, sizeof(bid) };
	struct pprof_map lib = { 0x7f0000, 0x7f8000, 0, "/lib/libc.so.6", NULL, 0 };
	struct pprof_line leaf[] = {
		{ .func = "inlined_helper", .file = "/src/prog.c", .line = 12 },
		{ .func = "alloc_site", .file = "/src/prog.c", .line = 40 },
	};
	struct pprof_line caller = { .func = "main", .system_name = "main@@V_1", .file = "/src/prog.c",
				     .line = 99 };
	struct pprof_label pid = { .key = "pid", .num = 4242 };
	uint64_t m1, m2, l1, l2, l3, locs[2];
	Perftools__Profiles__Profile *pr;
	void *buf = NULL;
	uint8_t *raw = NULL;
	size_t len = 0, rawlen = 0;

	CHECK_EQ_U64(pprof__new(&(struct pprof_opts){ .types = types, .ntypes = 4,
						      .period_type = { "space", "bytes" },
						      .period = 1, .default_type = "inuse_space",
						      .time_nanos = 1700000000000000000LL,
						      .duration_nanos = 654000000 },
			       &p), 0);
	if (!p)
		return;
	m1 = pprof__mapping(p, &exe);
	m2 = pprof__mapping(p, &lib);
	CHECK_EQ_U64(m1, 1);
	CHECK_EQ_U64(m2, 2);
	CHECK_EQ_U64(pprof__mapping(p, &exe), m1);		/* once */
	CHECK_EQ_U64(pprof__find_location(p, m1, 0x1234), 0);
	l1 = pprof__location(p, m1, 0x1234, leaf, 2);
	l2 = pprof__location(p, m1, 0x1400, &caller, 1);
	l3 = pprof__location(p, m2, 0x7f0100, NULL, 0);		/* unsymbolized */
	CHECK(l1 && l2 && l3 && l1 != l2 && l2 != l3);
	CHECK_EQ_U64(pprof__find_location(p, m1, 0x1234), l1);
	CHECK_EQ_U64(pprof__location(p, m1, 0x1234, &caller, 1), l1);	/* first lines kept */
	CHECK_EQ_U64(pprof__location(p, 9, 0x1234, &caller, 1), 0);	/* no such mapping */
	locs[0] = l1;
	locs[1] = l2;
	CHECK_EQ_U64(pprof__sample(p, locs, 2, (int64_t[]){ 7, 280, 7, 280 }, &pid, 1), 0);
	locs[0] = l3;
	CHECK_EQ_U64(pprof__sample(p, locs, 2, (int64_t[]){ 1000, 500500, 0, 0 }, NULL, 0), 0);
	locs[0] = 77;
	CHECK_EQ_U64(pprof__sample(p, locs, 1, (int64_t[]){ 1, 1, 1, 1 }, NULL, 0),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(pprof__samples(p), 2);
	CHECK_EQ_U64(pprof__comment(p, "lost 3 events"), 0);
	CHECK_EQ_U64(pprof__encode(p, &buf, &len), 0);
	CHECK(len > 18 && ((uint8_t *)buf)[0] == 0x1f && ((uint8_t *)buf)[1] == 0x8b);
	CHECK_EQ_U64(gunzip(buf, len, &raw, &rawlen), 0);
	pr = raw ? perftools__profiles__profile__unpack(NULL, rawlen, raw) : NULL;
	CHECK(pr != NULL);
	if (pr) {
		CHECK(pr->n_string_table > 0);
		CHECK_STR(pr->string_table[0], "");
		CHECK_EQ_U64(pr->n_sample_type, 4);
		if (pr->n_sample_type == 4) {
			CHECK_STR(s_at(pr, pr->sample_type[0]->type), "alloc_objects");
			CHECK_STR(s_at(pr, pr->sample_type[0]->unit), "count");
			CHECK_STR(s_at(pr, pr->sample_type[1]->type), "alloc_space");
			CHECK_STR(s_at(pr, pr->sample_type[1]->unit), "bytes");
			CHECK_STR(s_at(pr, pr->sample_type[2]->type), "inuse_objects");
			CHECK_STR(s_at(pr, pr->sample_type[3]->type), "inuse_space");
			CHECK_STR(s_at(pr, pr->sample_type[3]->unit), "bytes");
		}
		CHECK_STR(s_at(pr, pr->default_sample_type), "inuse_space");
		CHECK(pr->period_type != NULL);
		if (pr->period_type)
			CHECK_STR(s_at(pr, pr->period_type->type), "space");
		CHECK_EQ_U64(pr->period, 1);
		CHECK_EQ_U64(pr->time_nanos, 1700000000000000000ULL);
		CHECK_EQ_U64(pr->duration_nanos, 654000000);
		CHECK_EQ_U64(pr->n_comment, 1);
		if (pr->n_comment)
			CHECK_STR(s_at(pr, pr->comment[0]), "lost 3 events");
		/* Every string once: "count", "bytes", the file name. */
		CHECK_EQ_U64(count_string(pr, "count"), 1);
		CHECK_EQ_U64(count_string(pr, "bytes"), 1);
		CHECK_EQ_U64(count_string(pr, "/src/prog.c"), 1);

		CHECK_EQ_U64(pr->n_mapping, 2);
		if (pr->n_mapping == 2) {
			const Perftools__Profiles__Mapping *m = pr->mapping[0];

			CHECK_EQ_U64(m->id, 1);
			CHECK_EQ_U64(m->memory_start, 0x1000);
			CHECK_EQ_U64(m->memory_limit, 0x2000);
			CHECK_EQ_U64(m->file_offset, 0x1000);
			CHECK_STR(s_at(pr, m->filename), "/usr/bin/prog");
			CHECK_STR(s_at(pr, m->build_id), "81b60ab42b");
			CHECK(m->has_functions && m->has_filenames && m->has_line_numbers &&
			      m->has_inline_frames);
			CHECK_STR(s_at(pr, pr->mapping[1]->build_id), "");
			CHECK(pr->mapping[1]->has_functions && !pr->mapping[1]->has_line_numbers);
		}

		CHECK_EQ_U64(pr->n_location, 3);
		CHECK_EQ_U64(pr->n_function, 3);	/* inlined_helper, alloc_site, main */
		if (pr->n_location == 3) {
			const Perftools__Profiles__Location *l = pr->location[0];
			const Perftools__Profiles__Function *f;

			CHECK_EQ_U64(l->id, l1);
			CHECK_EQ_U64(l->mapping_id, 1);
			CHECK_EQ_U64(l->address, 0x1234);
			CHECK_EQ_U64(l->n_line, 2);
			if (l->n_line == 2) {
				f = func_of(pr, l->line[0]->function_id);
				CHECK(f != NULL);
				if (f) {
					CHECK_STR(s_at(pr, f->name), "inlined_helper");
					CHECK_STR(s_at(pr, f->system_name), "inlined_helper");
					CHECK_STR(s_at(pr, f->filename), "/src/prog.c");
				}
				CHECK_EQ_U64(l->line[0]->line, 12);
				f = func_of(pr, l->line[1]->function_id);
				CHECK(f && !strcmp(s_at(pr, f->name), "alloc_site"));
				CHECK_EQ_U64(l->line[1]->line, 40);
			}
			l = pr->location[1];
			f = l->n_line == 1 ? func_of(pr, l->line[0]->function_id) : NULL;
			CHECK(f != NULL);
			if (f) {
				CHECK_STR(s_at(pr, f->name), "main");
				CHECK_STR(s_at(pr, f->system_name), "main@@V_1");
			}
			CHECK_EQ_U64(pr->location[2]->n_line, 0);
			CHECK_EQ_U64(pr->location[2]->mapping_id, 2);
		}

		CHECK_EQ_U64(pr->n_sample, 2);
		if (pr->n_sample == 2) {
			const Perftools__Profiles__Sample *s = pr->sample[0];

			CHECK_EQ_U64(s->n_location_id, 2);
			CHECK(s->n_location_id == 2 && s->location_id[0] == l1 &&
			      s->location_id[1] == l2);
			CHECK_EQ_U64(s->n_value, 4);
			CHECK(s->n_value == 4 && s->value[0] == 7 && s->value[1] == 280 &&
			      s->value[2] == 7 && s->value[3] == 280);
			CHECK_EQ_U64(s->n_label, 1);
			if (s->n_label == 1) {
				CHECK_STR(s_at(pr, s->label[0]->key), "pid");
				CHECK_EQ_U64(s->label[0]->num, 4242);
			}
			CHECK(pr->sample[1]->n_value == 4 && pr->sample[1]->value[1] == 500500);
			CHECK_EQ_U64(pr->sample[1]->n_label, 0);
		}
		perftools__profiles__profile__free_unpacked(pr, NULL);
	}
	free(raw);
	free(buf);
	pprof__free(p);
}

/* The profile @p encoded, decoded back; NULL when either fails. */
static Perftools__Profiles__Profile *roundtrip(const struct pprof *p)
{
	Perftools__Profiles__Profile *pr = NULL;
	uint8_t *raw = NULL;
	void *buf = NULL;
	size_t len = 0, rawlen = 0;

	if (!pprof__encode(p, &buf, &len) && !gunzip(buf, len, &raw, &rawlen))
		pr = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	free(raw);
	free(buf);
	return pr;
}

/* Labels as pprof-stacks.c writes them (pid, tid: numbers; comm: a
 * string): each key and string value an index into the string table,
 * stored once however many samples carry it; a number label's str index
 * 0 (none) and its unit an index when given; a label pprof could not tell
 * from another (an empty key; an empty string, which is index 0: none) is
 * refused, and no sample is added. */
static void test_labels(void)
{
	static const struct pprof_value_type t[] = { { "faults", "count" } };
	const struct pprof_label a[] = {
		{ .key = "pid", .num = 4242 }, { .key = "tid", .num = 4250 },
		{ .key = "comm", .str = "leak-target" },
	};
	const struct pprof_label b[] = {
		{ .key = "pid", .num = 4242 }, { .key = "comm", .str = "leak-target" },
		{ .key = "bytes", .num = -4096, .num_unit = "bytes" },
	};
	struct pprof *p = NULL;
	Perftools__Profiles__Profile *pr;
	uint64_t loc;

	CHECK_EQ_U64(pprof__new(&(struct pprof_opts){ .types = t, .ntypes = 1 }, &p), 0);
	if (!p)
		return;
	loc = pprof__location(p, 0, 0x1000, NULL, 0);
	CHECK(loc != 0);
	CHECK_EQ_U64(pprof__sample(p, &loc, 1, (int64_t[]){ 3 }, a, 3), 0);
	CHECK_EQ_U64(pprof__sample(p, &loc, 1, (int64_t[]){ 5 }, b, 3), 0);
	CHECK_EQ_U64(pprof__sample(p, &loc, 1, (int64_t[]){ 1 },
				   &(struct pprof_label){ .key = "comm", .str = "" }, 1),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(pprof__sample(p, &loc, 1, (int64_t[]){ 1 },
				   &(struct pprof_label){ .key = "", .num = 1 }, 1),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(pprof__samples(p), 2);
	pr = roundtrip(p);
	CHECK(pr != NULL);
	if (pr && pr->n_sample == 2 && pr->sample[0]->n_label == 3 &&
	    pr->sample[1]->n_label == 3) {
		const Perftools__Profiles__Label *const *l = (const void *)pr->sample[0]->label;
		const Perftools__Profiles__Label *const *m = (const void *)pr->sample[1]->label;

		CHECK_STR(s_at(pr, l[0]->key), "pid");
		CHECK_EQ_U64(l[0]->num, 4242);
		CHECK_EQ_U64(l[0]->str, 0);
		CHECK_EQ_U64(l[0]->num_unit, 0);
		CHECK_STR(s_at(pr, l[1]->key), "tid");
		CHECK_EQ_U64(l[1]->num, 4250);
		CHECK_EQ_U64(l[1]->str, 0);
		CHECK_STR(s_at(pr, l[2]->key), "comm");
		CHECK(l[2]->str > 0);
		CHECK_STR(s_at(pr, l[2]->str), "leak-target");
		CHECK_EQ_U64(l[2]->num, 0);
		/* The same key and string, the same index. */
		CHECK_EQ_U64(m[0]->key, l[0]->key);
		CHECK_EQ_U64(m[1]->key, l[2]->key);
		CHECK_EQ_U64(m[1]->str, l[2]->str);
		CHECK_EQ_U64(count_string(pr, "pid"), 1);
		CHECK_EQ_U64(count_string(pr, "leak-target"), 1);
		CHECK_STR(s_at(pr, m[2]->key), "bytes");
		CHECK_EQ_U64((uint64_t)m[2]->num, (uint64_t)-4096);
		CHECK_STR(s_at(pr, m[2]->num_unit), "bytes");
		CHECK_EQ_U64(count_string(pr, "bytes"), 1);
		CHECK_EQ_U64(pr->sample[1]->value[0], 5);
	} else {
		CHECK(!"two samples of three labels each");
	}
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	pprof__free(p);
}

static void test_bad_opts(void)
{
	static const struct pprof_value_type t[] = { { "faults", "count" } };
	struct pprof *p = (struct pprof *)1;

	CHECK_EQ_U64(pprof__new(&(struct pprof_opts){ .types = t, .ntypes = 0 }, &p),
		     (uint64_t)-EINVAL);
	CHECK(p == NULL);
	CHECK_EQ_U64(pprof__new(&(struct pprof_opts){ .types = t, .ntypes = 1,
						      .default_type = "inuse_space" }, &p),
		     (uint64_t)-EINVAL);
	CHECK(p == NULL);
	pprof__free(NULL);
}

int main(void)
{
	test_heap_profile();
	test_labels();
	test_bad_opts();
	return check_done("test-pprof");
}
