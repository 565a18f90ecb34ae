/*
 * probe-spec: parse and format probe spec files (probes/NAME.probes).
 *
 * The parser is strict on purpose: a typo in a spec file would otherwise
 * surface much later as a kernel "invalid argument" from uprobe_events,
 * with no hint of which file and line caused it.  So everything the
 * kernel would refuse and we can check cheaply (names, kinds, $retval on
 * an entry probe, fetch types) is checked here, with "ORIGIN:LINE:" in
 * the message.  The value of a fetcharg is otherwise passed through
 * untouched: the kernel's own parser stays the authority on its syntax.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/errbuf.h"
#include "trace/probe-spec.h"
#include "trace/probes-builtin.h"
#include "trace/uprobe-pmu.h"
#include "lib/grow.h"

#ifndef FAULTLINE_PROBES_DIR
#define FAULTLINE_PROBES_DIR "/usr/local/share/faultline/probes"
#endif

/* The kernel's MAX_EVENT_NAME_LEN is 64 including the NUL. */
#define PROBE_NAME_MAX 63
/* The kernel's MAX_TRACE_ARGS. */
#define PROBE_FETCHARGS_MAX 128
/* Spec files are a few lines; anything bigger is a wrong path. */
#define PROBE_FILE_MAX (1024 * 1024)

struct probe_set {
	struct probe_spec *specs;
	size_t count;
	size_t cap;
	enum probe_block_size block_size;
};

/* One line being parsed: where to report, and its whitespace tokens. */
struct line_ctx {
	const char *origin;
	int line;
	char **tok;
	size_t ntok;
	size_t cap;
};

/* [A-Za-z_][A-Za-z0-9_]* and any of @more over the first @len bytes of @s,
 * not starting with a digit. */
static bool is_name(const char *s, size_t len, const char *more)
{
	size_t i;

	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_' || (c && strchr(more, c))))
			return false;
	}
	return true;
}

static bool is_ident(const char *s, size_t len)
{
	return is_name(s, len, "");
}

/* ELF symbol names: C and mangled C++ identifiers, plus '.' (local
 * clones such as "foo.cold") and '@' / '$' (symbol versions, some
 * assemblers' local labels). */
static bool is_symbol(const char *s, size_t len)
{
	return is_name(s, len, ".@$");
}

static bool all_digits(const char *s, size_t len, bool hex)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			continue;
		if (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			continue;
		return false;
	}
	return true;
}

/* Hex with 0x, or decimal; octal is deliberately not accepted ("010" is
 * ten, not eight), and overflow is an error rather than a wrap. */
static int parse_offset(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int base = 10;
	size_t len;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	len = strlen(s);
	if (!all_digits(s, len, base == 16))
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else
			d = (unsigned int)(*s - 'A' + 10);
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* A fetch type as the kernel's trace_probe.c knows it: u/s/x 8..64,
 * char, string, ustring, symbol, symstr, each optionally an array
 * "[N]"; or a bitfield "b<width>@<offset>/<container>". */
static bool is_fetch_type(const char *t)
{
	static const char *const names[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64", "char", "string", "ustring", "symbol", "symstr",
	};
	const char *br = strchr(t, '[');
	size_t base_len = br ? (size_t)(br - t) : strlen(t);
	size_t i;

	if (t[0] == 'b' && !br) {
		const char *at = strchr(t, '@');
		const char *sl = at ? strchr(at, '/') : NULL;

		return at && sl && all_digits(t + 1, (size_t)(at - t - 1), false) &&
		       all_digits(at + 1, (size_t)(sl - at - 1), false) &&
		       all_digits(sl + 1, strlen(sl + 1), false);
	}
	if (br) {
		size_t n = strlen(br);

		if (n < 3 || br[n - 1] != ']' || !all_digits(br + 1, n - 2, false))
			return false;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) == base_len && strncmp(t, names[i], base_len) == 0)
			return true;
	}
	return false;
}

static bool is_reserved_arg(const char *name, size_t len)
{
	/* Field names every event already has (trace_probe.c
	 * reserved_field_names); the kernel refuses them as argument names. */
	return (len >= 7 && strncmp(name, "common_", 7) == 0) ||
	       (len >= 8 && strncmp(name, "__probe_", 8) == 0);
}

static void spec_release(struct probe_spec *p)
{
	size_t i;

	free(p->name);
	free(p->library);
	for (i = 0; i < p->nsymbols; i++)
		free(p->symbols[i]);
	free(p->symbols);
	free(p->fetchargs);
	if (p->pmu) {
		spec_release(p->pmu);
		free(p->pmu);
	}
	memset(p, 0, sizeof(*p));
}

void probe_set__free(struct probe_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->count; i++)
		spec_release(&set->specs[i]);
	free(set->specs);
	free(set);
}

enum probe_block_size probe_set__block_size(const struct probe_set *set)
{
	return set ? set->block_size : PROBE_BLOCK_SIZE_NONE;
}

size_t probe_set__count(const struct probe_set *set)
{
	return set ? set->count : 0;
}

const struct probe_spec *probe_set__at(const struct probe_set *set, size_t i)
{
	if (!set || i >= set->count)
		return NULL;
	return &set->specs[i];
}

const struct probe_spec *probe_set__find(const struct probe_set *set, const char *name)
{
	size_t i;

	if (!set || !name)
		return NULL;
	for (i = 0; i < set->count; i++) {
		if (strcmp(set->specs[i].name, name) == 0)
			return &set->specs[i];
	}
	return NULL;
}

/* Split @line in place on blanks; a token starting with '#' ends it. */
static int tokenize(struct line_ctx *lc, char *line)
{
	char *s = line;

	lc->ntok = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
			s++;
		if (!*s || *s == '#')
			break;
		if (GROW_FOR(lc->tok, lc->cap, lc->ntok + 1, 16))
			return -ENOMEM;
		lc->tok[lc->ntok++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' && *s != '\f')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return 0;
}

/* "a|b+0x10" -> symbols {a, b}, offset 0x10. */
static int parse_symbols(struct line_ctx *lc, const char *tok, struct probe_spec *p,
			 struct errbuf *eb)
{
	const char *plus = strchr(tok, '+');
	size_t list_len = plus ? (size_t)(plus - tok) : strlen(tok);
	const char *s = tok;
	const char *end = tok + list_len;
	int err;

	if (plus) {
		err = parse_offset(plus + 1, &p->sym_offset);
		if (err == -ERANGE)
			return errbuf__set(eb, -EINVAL, "%s:%d: offset '%s' of '%s' out of range",
					   lc->origin, lc->line, plus + 1, tok);
		if (err)
			return errbuf__set(eb, -EINVAL,
					   "%s:%d: invalid offset '%s' of '%s' (expected hex 0x... or decimal)",
					   lc->origin, lc->line, plus + 1, tok);
	}
	for (;;) {
		const char *bar = memchr(s, '|', (size_t)(end - s));
		size_t len = bar ? (size_t)(bar - s) : (size_t)(end - s);
		char **syms;

		if (len == 0)
			return errbuf__set(eb, -EINVAL, "%s:%d: empty symbol candidate in '%s'",
					   lc->origin, lc->line, tok);
		if (!is_symbol(s, len))
			return errbuf__set(eb, -EINVAL, "%s:%d: invalid symbol '%.*s'",
					   lc->origin, lc->line, (int)len, s);
		syms = realloc(p->symbols, (p->nsymbols + 1) * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		p->symbols = syms;
		p->symbols[p->nsymbols] = strndup(s, len);
		if (!p->symbols[p->nsymbols])
			return -ENOMEM;
		p->nsymbols++;
		if (!bar)
			break;
		s = bar + 1;
	}
	return 0;
}

static int parse_fetchargs(struct line_ctx *lc, size_t first, struct probe_spec *p,
			   struct errbuf *eb)
{
	size_t n = lc->ntok - first;
	size_t total = 1, used = 0, i, j;
	char *joined;

	if (n > PROBE_FETCHARGS_MAX)
		return errbuf__set(eb, -EINVAL, "%s:%d: probe '%s' has %zu fetchargs, at most %d allowed",
				   lc->origin, lc->line, p->name, n, PROBE_FETCHARGS_MAX);
	for (i = first; i < lc->ntok; i++) {
		const char *arg = lc->tok[i];
		const char *eq = strchr(arg, '=');
		size_t name_len;
		const char *value, *colon;

		if (!eq)
			return errbuf__set(eb, -EINVAL, "%s:%d: fetcharg '%s' is not name=value",
					   lc->origin, lc->line, arg);
		name_len = (size_t)(eq - arg);
		value = eq + 1;
		if (!is_ident(arg, name_len))
			return errbuf__set(eb, -EINVAL, "%s:%d: invalid fetcharg name in '%s'",
					   lc->origin, lc->line, arg);
		if (is_reserved_arg(arg, name_len))
			return errbuf__set(eb, -EINVAL, "%s:%d: fetcharg name of '%s' is reserved",
					   lc->origin, lc->line, arg);
		for (j = first; j < i; j++) {
			if (strcspn(lc->tok[j], "=") == name_len &&
			    memcmp(lc->tok[j], arg, name_len) == 0)
				return errbuf__set(eb, -EINVAL,
						   "%s:%d: duplicate fetcharg name in '%s'",
						   lc->origin, lc->line, arg);
		}
		if (!*value)
			return errbuf__set(eb, -EINVAL, "%s:%d: empty value in fetcharg '%s'",
					   lc->origin, lc->line, arg);
		if (p->kind == PROBE_ENTRY && strstr(value, "$retval"))
			return errbuf__set(eb, -EINVAL,
					   "%s:%d: '$retval' in fetcharg '%s' of entry probe '%s'",
					   lc->origin, lc->line, arg, p->name);
		/* A type follows the last ':'; immediates (starting with a
		 * backslash) may hold any character, so they are left to
		 * the kernel. */
		colon = strrchr(value, ':');
		if (value[0] != '\\' && colon && !is_fetch_type(colon + 1))
			return errbuf__set(eb, -EINVAL, "%s:%d: invalid type '%s' in fetcharg '%s'",
					   lc->origin, lc->line, colon + 1, arg);
		total += strlen(arg) + 1;
	}
	joined = malloc(total);
	if (!joined)
		return -ENOMEM;
	joined[0] = '\0';
	for (i = first; i < lc->ntok; i++) {
		size_t len = strlen(lc->tok[i]);

		if (i > first)
			joined[used++] = ' ';
		memcpy(joined + used, lc->tok[i], len);
		used += len;
	}
	joined[used] = '\0';
	p->fetchargs = joined;
	return 0;
}

/* "pmu NAME ...": fetchargs the PMU can give (registers), on a twin of a
 * probe defined above. */
static int check_twin(struct line_ctx *lc, struct probe_set *set, const struct probe_spec *p,
		      struct probe_spec **orig, struct errbuf *eb)
{
	struct pmu_args *a = NULL;
	struct errbuf why = { "" };
	int err;

	*orig = (struct probe_spec *)probe_set__find(set, p->name);
	if (!*orig)
		return errbuf__set(eb, -EINVAL, "%s:%d: 'pmu' names no probe defined above: '%s'",
				   lc->origin, lc->line, p->name);
	if ((*orig)->pmu)
		return errbuf__set(eb, -EINVAL, "%s:%d: probe '%s' has a 'pmu' twin already (line %d)",
				   lc->origin, lc->line, p->name, (*orig)->pmu->line);
	err = pmu_args__parse(p->fetchargs, p->kind == PROBE_RETURN, &a, &why);
	pmu_args__free(a);
	if (err == -ENOMEM)
		return err;
	if (err)
		return errbuf__set(eb, -EINVAL, "%s:%d: pmu probe '%s': %s", lc->origin, lc->line,
				   p->name, why.msg);
	return 0;
}

static int parse_probe(struct line_ctx *lc, struct probe_set *set, const char *library,
		       bool twin, struct errbuf *eb)
{
	struct probe_spec p = { 0 }, *orig = NULL;
	const struct probe_spec *dup;
	const char *name, *kind;
	int err = 0;

	if (lc->ntok < 4) {
		err = errbuf__set(eb, -EINVAL,
				  "%s:%d: '%s' needs a name, a kind (entry or return) and a symbol",
				  lc->origin, lc->line, lc->tok[0]);
		goto out;
	}
	name = lc->tok[1];
	kind = lc->tok[2];
	if (!is_ident(name, strlen(name))) {
		err = errbuf__set(eb, -EINVAL, "%s:%d: invalid probe name '%s'",
				  lc->origin, lc->line, name);
		goto out;
	}
	if (strlen(name) > PROBE_NAME_MAX) {
		err = errbuf__set(eb, -EINVAL, "%s:%d: probe name '%s' longer than %d characters",
				  lc->origin, lc->line, name, PROBE_NAME_MAX);
		goto out;
	}
	dup = probe_set__find(set, name);
	if (dup && !twin) {
		err = errbuf__set(eb, -EINVAL, "%s:%d: duplicate probe name '%s' (first on line %d)",
				  lc->origin, lc->line, name, dup->line);
		goto out;
	}
	if (strcmp(kind, "entry") == 0) {
		p.kind = PROBE_ENTRY;
	} else if (strcmp(kind, "return") == 0) {
		p.kind = PROBE_RETURN;
	} else {
		err = errbuf__set(eb, -EINVAL,
				  "%s:%d: invalid probe kind '%s' (expected 'entry' or 'return')",
				  lc->origin, lc->line, kind);
		goto out;
	}
	if (!library) {
		err = errbuf__set(eb, -EINVAL, "%s:%d: probe '%s' comes before any 'library' line",
				  lc->origin, lc->line, name);
		goto out;
	}
	p.line = lc->line;
	p.name = strdup(name);
	p.library = strdup(library);
	if (!p.name || !p.library) {
		err = -ENOMEM;
		goto out;
	}
	err = parse_symbols(lc, lc->tok[3], &p, eb);
	if (err)
		goto out;
	err = parse_fetchargs(lc, 4, &p, eb);
	if (err)
		goto out;
	if (twin) {
		err = check_twin(lc, set, &p, &orig, eb);
		if (err)
			goto out;
		orig->pmu = malloc(sizeof(p));
		if (!orig->pmu) {
			err = -ENOMEM;
			goto out;
		}
		*orig->pmu = p;
		memset(&p, 0, sizeof(p));
		goto out;
	}
	if (GROW_FOR(set->specs, set->cap, set->count + 1, 8)) {
		err = -ENOMEM;
		goto out;
	}
	set->specs[set->count++] = p;
	memset(&p, 0, sizeof(p));
out:
	spec_release(&p);
	return err;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_expect(struct line_ctx *lc, struct probe_set *set, struct errbuf *eb)
{
	struct probe_spec *p;
	const char *hex;
	size_t len;

	if (lc->ntok != 3)
		return errbuf__set(eb, -EINVAL, "%s:%d: 'expect' needs a probe name and hex bytes",
				   lc->origin, lc->line);
	p = (struct probe_spec *)probe_set__find(set, lc->tok[1]);
	if (!p)
		return errbuf__set(eb, -EINVAL, "%s:%d: 'expect' names no probe defined above: '%s'",
				   lc->origin, lc->line, lc->tok[1]);
	if (p->pmu)
		p = p->pmu;	/* after its "pmu" line: the twin's */
	hex = lc->tok[2];
	len = strlen(hex);
	if (!len || len % 2 || len / 2 > sizeof(p->expect))
		return errbuf__set(eb, -EINVAL, "%s:%d: 'expect' wants 1 to %zu bytes in hex, not '%s'",
				   lc->origin, lc->line, sizeof(p->expect), hex);
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_nibble(hex[2 * i]), lo = hex_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return errbuf__set(eb, -EINVAL, "%s:%d: 'expect' bytes are not hex: '%s'",
					   lc->origin, lc->line, hex);
		p->expect[i] = (uint8_t)(hi << 4 | lo);
	}
	p->nexpect = len / 2;
	return 0;
}

static int retarget(struct probe_spec *p, const char *library, const char *prefix)
{
	if (library) {
		char *l = strdup(library);

		if (!l)
			return -ENOMEM;
		free(p->library);
		p->library = l;
	}
	for (size_t j = 0; prefix && prefix[0] && j < p->nsymbols; j++) {
		size_t n = strlen(prefix) + strlen(p->symbols[j]) + 1;
		char *sym = malloc(n);

		if (!sym)
			return -ENOMEM;
		snprintf(sym, n, "%s%s", prefix, p->symbols[j]);
		free(p->symbols[j]);
		p->symbols[j] = sym;
	}
	return p->pmu ? retarget(p->pmu, library, prefix) : 0;
}

int probe_set__retarget(struct probe_set *set, const char *library, const char *prefix)
{
	int err = 0;

	for (size_t i = 0; i < set->count && !err; i++)
		err = retarget(&set->specs[i], library, prefix);
	return err;
}

int probe_set__parse(const char *text, const char *origin, struct probe_set **out,
		     struct errbuf *eb)
{
	struct line_ctx lc = { .origin = origin ? origin : "<input>" };
	struct probe_set *set = NULL;
	char *copy = NULL;
	char *library = NULL;
	char *line;
	int err = 0;

	*out = NULL;
	set = calloc(1, sizeof(*set));
	copy = strdup(text ? text : "");
	if (!set || !copy) {
		err = -ENOMEM;
		goto out;
	}
	line = copy;
	while (line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		lc.line++;
		err = tokenize(&lc, line);
		if (err)
			goto out;
		if (lc.ntok == 0) {
			/* blank or comment */
		} else if (strcmp(lc.tok[0], "library") == 0) {
			if (lc.ntok != 2) {
				err = errbuf__set(eb, -EINVAL, "%s:%d: 'library' needs exactly one name",
						  lc.origin, lc.line);
				goto out;
			}
			free(library);
			library = strdup(lc.tok[1]);
			if (!library) {
				err = -ENOMEM;
				goto out;
			}
		} else if (strcmp(lc.tok[0], "probe") == 0 || strcmp(lc.tok[0], "pmu") == 0) {
			err = parse_probe(&lc, set, library, lc.tok[0][1] == 'm', eb);
			if (err)
				goto out;
		} else if (strcmp(lc.tok[0], "expect") == 0) {
			err = parse_expect(&lc, set, eb);
			if (err)
				goto out;
		} else if (strcmp(lc.tok[0], "block-size") == 0) {
			if (lc.ntok != 2 || strcmp(lc.tok[1], "glibc-chunk")) {
				err = errbuf__set(eb, -EINVAL, "%s:%d: 'block-size' knows one header: "
						  "'block-size glibc-chunk'", lc.origin, lc.line);
				goto out;
			}
			set->block_size = PROBE_BLOCK_SIZE_GLIBC_CHUNK;
		} else {
			err = errbuf__set(eb, -EINVAL,
					  "%s:%d: unknown directive '%s' (expected 'library', 'probe', 'pmu', 'expect' or 'block-size')",
					  lc.origin, lc.line, lc.tok[0]);
			goto out;
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = set;
	set = NULL;
out:
	free(library);
	free(lc.tok);
	free(copy);
	probe_set__free(set);
	return err;
}

int probe_set__load(const char *path, struct probe_set **out, struct errbuf *eb)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	char *nul;
	int fd = -1;
	int err = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errbuf__set(eb, -errno, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (cap - len < 4096 + 1) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *t;

			if (ncap > PROBE_FILE_MAX + 8192)
				ncap = PROBE_FILE_MAX + 8192;
			t = realloc(text, ncap);
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			text = t;
			cap = ncap;
		}
		r = read(fd, text + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errbuf__set(eb, -errno, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > PROBE_FILE_MAX) {
			err = errbuf__set(eb, -EFBIG, "'%s' is larger than %d bytes", path,
					  PROBE_FILE_MAX);
			goto out;
		}
	}
	if (!text) {
		text = strdup("");
		if (!text) {
			err = -ENOMEM;
			goto out;
		}
	}
	text[len] = '\0';
	/* The parser sees a C string: a NUL would silently cut the file. */
	nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		const char *s;

		for (s = text; s < nul; s++)
			line += *s == '\n';
		err = errbuf__set(eb, -EINVAL, "%s:%d: nul byte in file", path, line);
		goto out;
	}
	err = probe_set__parse(text, path, out, eb);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return err;
}

static bool is_spec_name(const char *name)
{
	const char *s;

	if (!name[0] || name[0] == '.')
		return false;
	for (s = name; *s; s++) {
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	}
	return true;
}

int probe_set__load_named(const char *name, struct probe_set **out, struct errbuf *eb)
{
	/* Candidates, in order; exe_dir-based ones only if readlink works. */
	char exe[PATH_MAX];
	char exe_probes[PATH_MAX];
	char exe_up_probes[PATH_MAX];
	const char *dirs[4];
	char path[PATH_MAX];
	char tried[768];
	size_t ndirs = 0, i, used = 0;
	const char *env = getenv("FAULTLINE_PROBES_DIR");
	ssize_t r;
	int err = -ENOENT;

	*out = NULL;
	if (!name || !is_spec_name(name))
		return errbuf__set(eb, -EINVAL, "invalid probe spec name '%s'", name ? name : "");
	if (env && *env)
		dirs[ndirs++] = env;
	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r > 0) {
		char *slash;

		exe[r] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(exe_probes, sizeof(exe_probes), "%s/probes", exe) <
			    (int)sizeof(exe_probes))
				dirs[ndirs++] = exe_probes;
			if (snprintf(exe_up_probes, sizeof(exe_up_probes), "%s/../probes", exe) <
			    (int)sizeof(exe_up_probes))
				dirs[ndirs++] = exe_up_probes;
		}
	}
	dirs[ndirs++] = FAULTLINE_PROBES_DIR;

	tried[0] = '\0';
	for (i = 0; i < ndirs; i++) {
		int n = snprintf(path, sizeof(path), "%s/%s.probes", dirs[i], name);

		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		err = probe_set__load(path, out, eb);
		if (err != -ENOENT)
			return err;
		if (used < sizeof(tried)) {
			n = snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? ", " : "",
				     dirs[i]);
			if (n > 0)
				used += (size_t)n;
		}
	}
	/* The copy built into the binary, when no directory has one. */
	for (i = 0; probe_builtins[i].name; i++) {
		if (strcmp(probe_builtins[i].name, name))
			continue;
		snprintf(path, sizeof(path), "<built-in %s.probes>", name);
		return probe_set__parse(probe_builtins[i].text, path, out, eb);
	}
	return errbuf__set(eb, -ENOENT, "probe spec '%s' not found in: %s, nor built in", name,
			   tried);
}

int probe_spec__fetcharg(const struct probe_spec *p, const char *name, char *buf, size_t n)
{
	size_t ln = strlen(name);

	for (const char *a = p->fetchargs; a && *a;) {
		size_t len = strcspn(a, " ");

		if (len > ln && !strncmp(a, name, ln) && a[ln] == '=') {
			size_t vlen = strcspn(a + ln + 1, ": ");

			if (!vlen || vlen >= n)
				return -ENOSPC;
			memcpy(buf, a + ln + 1, vlen);
			buf[vlen] = '\0';
			return 0;
		}
		a += len;
		a += strspn(a, " ");
	}
	return -ENOENT;
}

int probe_spec__format(const struct probe_spec *p, char *buf, size_t n)
{
	size_t used = 0, i;
	int w;

	if (n == 0)
		return -ENOSPC;
	buf[0] = '\0';
	w = snprintf(buf, n, "probe %s %s ", p->name,
		     p->kind == PROBE_RETURN ? "return" : "entry");
	if (w < 0 || (size_t)w >= n)
		return -ENOSPC;
	used = (size_t)w;
	for (i = 0; i < p->nsymbols; i++) {
		w = snprintf(buf + used, n - used, "%s%s", i ? "|" : "", p->symbols[i]);
		if (w < 0 || (size_t)w >= n - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	if (p->sym_offset) {
		w = snprintf(buf + used, n - used, "+0x%llx", (unsigned long long)p->sym_offset);
		if (w < 0 || (size_t)w >= n - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	if (p->fetchargs && p->fetchargs[0]) {
		w = snprintf(buf + used, n - used, " %s", p->fetchargs);
		if (w < 0 || (size_t)w >= n - used)
			return -ENOSPC;
	}
	return 0;
}
