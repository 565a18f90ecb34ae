/*
 * pprof: see pprof.h.
 *
 * The messages are protobuf-c's generated structs (proto/profile.pb-c.h,
 * made from proto/profile.proto at build time), kept in growing arrays of
 * structs; the arrays of pointers the generated Profile wants are made at
 * encode time only, so growing never leaves a pointer behind.  Each table
 * that stores a thing once is a hashmap from the content's hash to the
 * index + 1, a collision taking the next hash value (open addressing over
 * the hash), as cmd-heap's groups do.
 * A location's lines and a sample's labels live in one block each, the
 * pointers first, so the pointer array is what is freed.
 *
 * Ids are indexes + 1: pprof wants nonzero ids, and string index 0 is "".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/grow.h"
#include "lib/hashmap.h"
#include "cmd/out/pprof.h"
#include "proto/profile.pb-c.h"

typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

struct pprof {
	char **strings;
	size_t nstrings, capstrings;
	struct hashmap *string_idx;
	pb_value_type *types;
	size_t ntypes;
	pb_value_type period_type;
	bool has_period_type;
	int64_t period, default_type, time_nanos, duration_nanos;
	int64_t *comments;
	size_t ncomments, capcomments;
	pb_mapping *maps;
	size_t nmaps, capmaps;
	struct hashmap *map_idx;
	pb_function *funcs;
	size_t nfuncs, capfuncs;
	struct hashmap *func_idx;
	pb_location *locs;		/* each line[] points into its own lines block */
	size_t nlocs, caplocs;
	struct hashmap *loc_idx;
	pb_sample *samples;		/* each label[] points into its own labels block */
	size_t nsamples, capsamples;
};

/* ---- storing once ---- */

typedef bool (*same_fn)(const struct pprof *p, size_t i, const void *key);

/* The index + 1 of the entry equal to @key under hash @h, or 0 with *@free_h
 * the hash value a new entry is to be stored under. */
static uint64_t probe(const struct pprof *p, const struct hashmap *idx, uint64_t h, same_fn same,
		      const void *key, uint64_t *free_h)
{
	uint64_t v;

	for (;; h++) {
		if (!hashmap__get(idx, h, &v)) {
			*free_h = h;
			return 0;
		}
		if (same(p, v - 1, key))
			return v;
	}
}

/* @elem (@size bytes, its id set to *@n + 1) as the last of the *@n in
 * *@arr, found under hash @h: its id, or 0 when out of memory. */
static uint64_t append(struct hashmap *idx, uint64_t h, void **arr, size_t *n, size_t *cap,
		       size_t size, const void *elem)
{
	if (grow__to(arr, cap, *n + 1, size, 64) || hashmap__set(idx, h, *n + 1))
		return 0;
	memcpy((char *)*arr + *n * size, elem, size);
	return ++*n;
}

static bool same_string(const struct pprof *p, size_t i, const void *key)
{
	return !strcmp(p->strings[i], key);
}

/* The string table index of @s (NULL: ""), added when new; -1 when out of
 * memory. */
static int64_t str(struct pprof *p, const char *s)
{
	uint64_t h = 0, v;

	if (!s)
		s = "";
	v = probe(p, p->string_idx, hash_bytes(s, strlen(s)), same_string, s, &h);
	if (v)
		return (int64_t)v - 1;
	if (GROW_FOR(p->strings, p->capstrings, p->nstrings + 1, 64))
		return -1;
	p->strings[p->nstrings] = strdup(s);
	if (!p->strings[p->nstrings])
		return -1;
	if (hashmap__set(p->string_idx, h, p->nstrings + 1)) {
		free(p->strings[p->nstrings]);
		return -1;
	}
	return (int64_t)p->nstrings++;
}

static int value_type(struct pprof *p, const struct pprof_value_type *vt, pb_value_type *out)
{
	*out = (pb_value_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	out->type = str(p, vt->type);
	out->unit = str(p, vt->unit);
	return out->type < 0 || out->unit < 0 ? -ENOMEM : 0;
}

int pprof__new(const struct pprof_opts *o, struct pprof **out)
{
	struct pprof *p;
	int err = -ENOMEM;

	*out = NULL;
	if (!o->ntypes)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->string_idx = hashmap__new();
	p->map_idx = hashmap__new();
	p->func_idx = hashmap__new();
	p->loc_idx = hashmap__new();
	p->types = calloc(o->ntypes, sizeof(*p->types));
	if (!p->string_idx || !p->map_idx || !p->func_idx || !p->loc_idx || !p->types ||
	    str(p, "") != 0)
		goto fail;
	p->ntypes = o->ntypes;
	p->default_type = 0;
	for (size_t i = 0; i < o->ntypes; i++) {
		if (value_type(p, &o->types[i], &p->types[i]))
			goto fail;
		if (o->default_type && !strcmp(o->default_type, o->types[i].type))
			p->default_type = p->types[i].type;
	}
	if (o->default_type && !p->default_type) {
		err = -EINVAL;
		goto fail;
	}
	if (o->period_type.type || o->period_type.unit) {
		if (value_type(p, &o->period_type, &p->period_type))
			goto fail;
		p->has_period_type = true;
	}
	p->period = o->period;
	p->time_nanos = o->time_nanos;
	p->duration_nanos = o->duration_nanos;
	*out = p;
	return 0;
fail:
	pprof__free(p);
	return err;
}

void pprof__free(struct pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	for (size_t i = 0; i < p->nlocs; i++)
		free(p->locs[i].line);
	for (size_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].location_id);
		free(p->samples[i].value);
		free(p->samples[i].label);
	}
	free(p->locs);
	free(p->samples);
	free(p->funcs);
	free(p->maps);
	free(p->types);
	free(p->comments);
	hashmap__free(p->string_idx);
	hashmap__free(p->map_idx);
	hashmap__free(p->func_idx);
	hashmap__free(p->loc_idx);
	free(p);
}

int pprof__comment(struct pprof *p, const char *text)
{
	int64_t s = str(p, text);

	if (s < 0 || GROW_FOR(p->comments, p->capcomments, p->ncomments + 1, 4))
		return -ENOMEM;
	p->comments[p->ncomments++] = s;
	return 0;
}

/* ---- mappings ---- */

static bool same_map(const struct pprof *p, size_t i, const void *key)
{
	const pb_mapping *a = &p->maps[i], *b = key;

	return a->memory_start == b->memory_start && a->memory_limit == b->memory_limit &&
	       a->file_offset == b->file_offset && a->filename == b->filename &&
	       a->build_id == b->build_id;
}

uint64_t pprof__mapping(struct pprof *p, const struct pprof_map *m)
{
	pb_mapping pm = PERFTOOLS__PROFILES__MAPPING__INIT;
	char hex[2 * 255 + 1];
	uint64_t key[5], h = 0, v;

	for (size_t i = 0; i < m->build_id_size && i < 255; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	hex[2 * (m->build_id_size < 255 ? m->build_id_size : 255)] = '\0';
	pm.memory_start = m->start;
	pm.memory_limit = m->limit;
	pm.file_offset = m->offset;
	pm.filename = str(p, m->file);
	pm.build_id = str(p, hex);
	if (pm.filename < 0 || pm.build_id < 0)
		return 0;
	/* Symbolized here: pprof must not look the addresses up again in
	 * files that may have changed since (or live on another host). */
	pm.has_functions = true;
	key[0] = pm.memory_start;
	key[1] = pm.memory_limit;
	key[2] = pm.file_offset;
	key[3] = (uint64_t)pm.filename;
	key[4] = (uint64_t)pm.build_id;
	v = probe(p, p->map_idx, hash_bytes(key, sizeof(key)), same_map, &pm, &h);
	if (v)
		return v;
	pm.id = p->nmaps + 1;
	return append(p->map_idx, h, (void **)&p->maps, &p->nmaps, &p->capmaps, sizeof(pm), &pm);
}

/* ---- functions ---- */

static bool same_func(const struct pprof *p, size_t i, const void *key)
{
	const pb_function *a = &p->funcs[i], *b = key;

	return a->name == b->name && a->system_name == b->system_name && a->filename == b->filename;
}

/* The id of the function @l is in; 0 when out of memory. */
static uint64_t function(struct pprof *p, const struct pprof_line *l)
{
	pb_function pf = PERFTOOLS__PROFILES__FUNCTION__INIT;
	uint64_t key[3], h = 0, v;

	pf.name = str(p, l->func);
	pf.system_name = l->system_name ? str(p, l->system_name) : pf.name;
	pf.filename = str(p, l->file);
	if (pf.name < 0 || pf.system_name < 0 || pf.filename < 0)
		return 0;
	key[0] = (uint64_t)pf.name;
	key[1] = (uint64_t)pf.system_name;
	key[2] = (uint64_t)pf.filename;
	v = probe(p, p->func_idx, hash_bytes(key, sizeof(key)), same_func, &pf, &h);
	if (v)
		return v;
	pf.id = p->nfuncs + 1;
	return append(p->func_idx, h, (void **)&p->funcs, &p->nfuncs, &p->capfuncs, sizeof(pf), &pf);
}

/* ---- locations ---- */

static bool same_loc(const struct pprof *p, size_t i, const void *key)
{
	const uint64_t *k = key;

	return p->locs[i].mapping_id == k[0] && p->locs[i].address == k[1];
}

uint64_t pprof__find_location(const struct pprof *p, uint64_t map, uint64_t addr)
{
	uint64_t key[2] = { map, addr }, h;

	return probe(p, p->loc_idx, hash_bytes(key, sizeof(key)), same_loc, key, &h);
}

uint64_t pprof__location(struct pprof *p, uint64_t map, uint64_t addr,
			 const struct pprof_line *lines, size_t nlines)
{
	pb_location pl = PERFTOOLS__PROFILES__LOCATION__INIT;
	uint64_t key[2] = { map, addr }, h = 0, v;
	pb_line *block;
	void *mem;

	if (map > p->nmaps)
		return 0;
	v = probe(p, p->loc_idx, hash_bytes(key, sizeof(key)), same_loc, key, &h);
	if (v)
		return v;
	/* The pointers to the lines, then the lines, in one block: freeing
	 * line[] frees both. */
	mem = malloc((nlines ? nlines : 1) * (sizeof(pb_line *) + sizeof(*block)));
	if (!mem)
		return 0;
	pl.line = mem;
	block = (pb_line *)(pl.line + nlines);
	pl.n_line = nlines;
	for (size_t i = 0; i < nlines; i++) {
		block[i] = (pb_line)PERFTOOLS__PROFILES__LINE__INIT;
		block[i].function_id = function(p, &lines[i]);
		block[i].line = lines[i].line;
		pl.line[i] = &block[i];
		if (!block[i].function_id)
			goto fail;
		if (lines[i].file && map)
			p->maps[map - 1].has_filenames = true;
		if (lines[i].line && map)
			p->maps[map - 1].has_line_numbers = true;
		if (nlines > 1 && map)
			p->maps[map - 1].has_inline_frames = true;
	}
	pl.id = p->nlocs + 1;
	pl.mapping_id = map;
	pl.address = addr;
	v = append(p->loc_idx, h, (void **)&p->locs, &p->nlocs, &p->caplocs, sizeof(pl), &pl);
	if (v)
		return v;
fail:
	free(mem);
	return 0;
}

/* ---- samples ---- */

int pprof__sample(struct pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
		  const struct pprof_label *labels, size_t nlabels)
{
	pb_sample ps = PERFTOOLS__PROFILES__SAMPLE__INIT;
	pb_label *lb;

	for (size_t i = 0; i < nlocs; i++)
		if (!locs[i] || locs[i] > p->nlocs)
			return -EINVAL;
	/* A label's str is a string table index, 0 meaning none: "" would
	 * read back as the number 0. */
	for (size_t i = 0; i < nlabels; i++)
		if (!labels[i].key || !labels[i].key[0] || (labels[i].str && !labels[i].str[0]))
			return -EINVAL;
	if (GROW_FOR(p->samples, p->capsamples, p->nsamples + 1, 256))
		return -ENOMEM;
	ps.location_id = malloc((nlocs ? nlocs : 1) * sizeof(*ps.location_id));
	ps.value = malloc(p->ntypes * sizeof(*ps.value));
	/* As a location's lines: the pointers, then the labels. */
	ps.label = malloc((nlabels ? nlabels : 1) * (sizeof(pb_label *) + sizeof(*lb)));
	if (!ps.location_id || !ps.value || !ps.label)
		goto fail;
	lb = (pb_label *)(ps.label + nlabels);
	memcpy(ps.location_id, locs, nlocs * sizeof(*locs));
	ps.n_location_id = nlocs;
	memcpy(ps.value, values, p->ntypes * sizeof(*values));
	ps.n_value = p->ntypes;
	ps.n_label = nlabels;
	for (size_t i = 0; i < nlabels; i++) {
		lb[i] = (pb_label)PERFTOOLS__PROFILES__LABEL__INIT;
		lb[i].key = str(p, labels[i].key);
		if (labels[i].str) {
			lb[i].str = str(p, labels[i].str);
		} else {
			lb[i].num = labels[i].num;
			lb[i].num_unit = labels[i].num_unit ? str(p, labels[i].num_unit) : 0;
		}
		if (lb[i].key < 0 || lb[i].str < 0 || lb[i].num_unit < 0)
			goto fail;
		ps.label[i] = &lb[i];
	}
	p->samples[p->nsamples++] = ps;
	return 0;
fail:
	free(ps.location_id);
	free(ps.value);
	free(ps.label);
	return -ENOMEM;
}

size_t pprof__samples(const struct pprof *p)
{
	return p->nsamples;
}

/* ---- encoding ---- */

/* @in as gzip into *@out (malloc'ed). */
static int gzip(const uint8_t *in, size_t len, void **out, size_t *outlen)
{
	z_stream z = { 0 };
	uLong bound;
	uint8_t *buf;
	int rc;

	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)len);
	buf = malloc(bound);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	return 0;
}

int pprof__encode(const struct pprof *p, void **buf, size_t *len)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_value_type **types = NULL, period_type = p->period_type;
	pb_sample **samples = NULL;
	pb_mapping **maps = NULL;
	pb_location **locs = NULL;
	pb_function **funcs = NULL;
	uint8_t *packed = NULL;
	size_t size;
	int err = -ENOMEM;

	*buf = NULL;
	*len = 0;
	types = malloc(p->ntypes * sizeof(*types));
	samples = malloc((p->nsamples + 1) * sizeof(*samples));
	maps = malloc((p->nmaps + 1) * sizeof(*maps));
	locs = malloc((p->nlocs + 1) * sizeof(*locs));
	funcs = malloc((p->nfuncs + 1) * sizeof(*funcs));
	if (!types || !samples || !maps || !locs || !funcs)
		goto out;
	for (size_t i = 0; i < p->ntypes; i++)
		types[i] = &p->types[i];
	for (size_t i = 0; i < p->nsamples; i++)
		samples[i] = &p->samples[i];
	for (size_t i = 0; i < p->nmaps; i++)
		maps[i] = &p->maps[i];
	for (size_t i = 0; i < p->nlocs; i++)
		locs[i] = &p->locs[i];
	for (size_t i = 0; i < p->nfuncs; i++)
		funcs[i] = &p->funcs[i];
	prof.n_sample_type = p->ntypes;
	prof.sample_type = types;
	prof.n_sample = p->nsamples;
	prof.sample = samples;
	prof.n_mapping = p->nmaps;
	prof.mapping = maps;
	prof.n_location = p->nlocs;
	prof.location = locs;
	prof.n_function = p->nfuncs;
	prof.function = funcs;
	prof.n_string_table = p->nstrings;
	prof.string_table = p->strings;
	prof.time_nanos = p->time_nanos;
	prof.duration_nanos = p->duration_nanos;
	if (p->has_period_type)
		prof.period_type = &period_type;
	prof.period = p->period;
	prof.n_comment = p->ncomments;
	prof.comment = p->comments;
	prof.default_sample_type = p->default_type;
	size = perftools__profiles__profile__get_packed_size(&prof);
	packed = malloc(size ? size : 1);
	if (!packed)
		goto out;
	if (perftools__profiles__profile__pack(&prof, packed) != size) {
		err = -EIO;
		goto out;
	}
	err = gzip(packed, size, buf, len);
out:
	free(packed);
	free(types);
	free(samples);
	free(maps);
	free(locs);
	free(funcs);
	return err;
}
