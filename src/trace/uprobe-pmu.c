/*
 * uprobe-pmu: fetchargs as sampled registers, the payload and format a
 * tracefs uprobe would have, and the perf attr of a PMU uprobe.  See
 * uprobe-pmu.h.
 *
 * The payload's layout is the kernel's for a uprobe event: the common
 * fields (8 bytes), then each argument at its own size in spec order.  No
 * __probe_ip: no tool reads it, and sampling the ip costs a register more
 * per event (~45 ns here, bench/sample-cost).
 */
#include <asm/perf_regs.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "trace/uprobe-pmu.h"
#include "stack/unwind.h"

#define COMMON_SIZE 8
#define MAX_ARGS 32

struct pmu_arg {
	char name[64];
	int reg;		/* PERF_REG_X86_* */
	int size;		/* 1, 2, 4, 8 */
	bool is_signed, hex;
	int offset;		/* in the payload */
};

struct pmu_args {
	struct pmu_arg arg[MAX_ARGS];
	size_t n;
	uint64_t mask;
	size_t raw_size;
};

static const struct {
	const char *name;
	int reg;
} regs[] = {
	{ "ax", PERF_REG_X86_AX }, { "bx", PERF_REG_X86_BX }, { "cx", PERF_REG_X86_CX },
	{ "dx", PERF_REG_X86_DX }, { "si", PERF_REG_X86_SI }, { "di", PERF_REG_X86_DI },
	{ "bp", PERF_REG_X86_BP }, { "sp", PERF_REG_X86_SP }, { "ip", PERF_REG_X86_IP },
	{ "r8", PERF_REG_X86_R8 }, { "r9", PERF_REG_X86_R9 }, { "r10", PERF_REG_X86_R10 },
	{ "r11", PERF_REG_X86_R11 }, { "r12", PERF_REG_X86_R12 }, { "r13", PERF_REG_X86_R13 },
	{ "r14", PERF_REG_X86_R14 }, { "r15", PERF_REG_X86_R15 },
};

static int reg_of(const char *name, size_t len)
{
	/* rdi, rax...: the r-prefixed names of the 8 legacy registers. */
	if (len == 3 && name[0] == 'r' && !(name[1] >= '0' && name[1] <= '9')) {
		name++;
		len--;
	}
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strlen(regs[i].name) == len && !strncmp(regs[i].name, name, len))
			return regs[i].reg;
	return -1;
}

/* u8..u64, s8..s64, x8..x64. */
static int parse_type(const char *t, struct pmu_arg *a)
{
	char *end;
	long bits;

	if (t[0] != 'u' && t[0] != 's' && t[0] != 'x')
		return -EOPNOTSUPP;
	bits = strtol(t + 1, &end, 10);
	if (*end || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return -EOPNOTSUPP;
	a->size = (int)bits / 8;
	a->is_signed = t[0] == 's';
	a->hex = t[0] == 'x';
	return 0;
}

int pmu_args__parse(const char *fetchargs, bool retprobe, struct pmu_args **out,
		    struct errbuf *eb)
{
	struct pmu_args *a = calloc(1, sizeof(*a));
	const char *p = fetchargs ? fetchargs : "";
	int err = 0;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->raw_size = COMMON_SIZE;
	while (*p) {
		const char *end, *eq, *colon, *val;
		struct pmu_arg *g;
		size_t len, vlen;
		char type[16];

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = strchr(p, ' ');
		len = end ? (size_t)(end - p) : strlen(p);
		eq = memchr(p, '=', len);
		if (!eq || eq == p || (size_t)(eq - p) >= sizeof(g->name)) {
			err = errbuf__set(eb, -EINVAL, "fetcharg '%.*s' is not name=value", (int)len, p);
			goto out;
		}
		if (a->n == MAX_ARGS) {
			err = errbuf__set(eb, -EINVAL, "more than %d fetchargs", MAX_ARGS);
			goto out;
		}
		g = &a->arg[a->n];
		memcpy(g->name, p, (size_t)(eq - p));
		val = eq + 1;
		vlen = len - (size_t)(val - p);
		colon = memchr(val, ':', vlen);
		snprintf(type, sizeof(type), "%.*s", colon ? (int)(p + len - colon - 1) : 3,
			 colon ? colon + 1 : "x64");
		if (colon)
			vlen = (size_t)(colon - val);
		if (parse_type(type, g)) {
			err = errbuf__set(eb, -EOPNOTSUPP, "fetcharg '%.*s': type '%s' is not a "
					  "register's (u/s/x 8..64)", (int)len, p, type);
			goto out;
		}
		if (vlen == 7 && !strncmp(val, "$retval", 7) && retprobe)
			g->reg = PERF_REG_X86_AX;
		else if (vlen > 1 && val[0] == '%')
			g->reg = reg_of(val + 1, vlen - 1);
		else
			g->reg = -1;
		if (g->reg < 0) {
			err = errbuf__set(eb, -EOPNOTSUPP, "fetcharg '%.*s' reads no register: the "
					  "uprobe PMU gives registers only", (int)len, p);
			goto out;
		}
		g->offset = (int)a->raw_size;
		a->raw_size += (size_t)g->size;
		a->mask |= 1ULL << g->reg;
		a->n++;
		p += len;
	}
out:
	if (err)
		pmu_args__free(a);
	else
		*out = a;
	return err;
}

void pmu_args__free(struct pmu_args *a)
{
	free(a);
}

uint64_t pmu_args__regs_mask(const struct pmu_args *a)
{
	return a->mask;
}

size_t pmu_args__raw_size(const struct pmu_args *a)
{
	return a->raw_size;
}

static const char *type_name(const struct pmu_arg *g)
{
	static const char *const u[] = { "u8", "u16", "", "u32", "", "", "", "u64" };
	static const char *const s[] = { "s8", "s16", "", "s32", "", "", "", "s64" };

	return g->is_signed ? s[g->size - 1] : u[g->size - 1];
}

int pmu_args__format(const struct pmu_args *a, const char *event, char **text)
{
	size_t cap = 1024 + a->n * 160, used;
	char *t = malloc(cap);

	*text = NULL;
	if (!t)
		return -ENOMEM;
	used = (size_t)snprintf(t, cap,
		"name: %s\nID: 0\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n", event);
	for (size_t i = 0; i < a->n; i++)
		used += (size_t)snprintf(t + used, cap - used,
					 "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
					 type_name(&a->arg[i]), a->arg[i].name, a->arg[i].offset,
					 a->arg[i].size, a->arg[i].is_signed);
	used += (size_t)snprintf(t + used, cap - used, "\nprint fmt: \"");
	for (size_t i = 0; i < a->n; i++)
		used += (size_t)snprintf(t + used, cap - used, "%s%s=%s", i ? " " : "",
					 a->arg[i].name, a->arg[i].hex ? "0x%llx" :
					 a->arg[i].is_signed ? "%lld" : "%llu");
	used += (size_t)snprintf(t + used, cap - used, "\"");
	for (size_t i = 0; i < a->n; i++)
		used += (size_t)snprintf(t + used, cap - used, ", REC->%s", a->arg[i].name);
	snprintf(t + used, cap - used, "\n");
	*text = t;
	return 0;
}

int pmu_args__fill(const struct pmu_args *a, const uint64_t *regs_in, uint64_t regs_mask,
		   int32_t pid, void *buf)
{
	struct unwind_input in = { .regs = regs_in, .regs_mask = regs_mask };
	unsigned char *b = buf;

	memset(b, 0, COMMON_SIZE);
	memcpy(b + 4, &pid, 4);
	for (size_t i = 0; i < a->n; i++) {
		uint64_t v;

		if (!unwind_input__reg(&in, a->arg[i].reg, &v))
			return -ENOENT;
		/* Little-endian: the low bytes are the narrower value. */
		memcpy(b + a->arg[i].offset, &v, (size_t)a->arg[i].size);
	}
	return 0;
}

int uprobe_pmu__retprobe_bit(const char *sysfs, int *bit)
{
	char path[512], *text = NULL;
	size_t len = 0;
	int err;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/uprobe/format/retprobe", sysfs);
	err = read_file(path, 256, &text, &len);
	if (err)
		return err;
	err = sscanf(text, "config:%d", bit) == 1 && *bit >= 0 && *bit < 64 ? 0 : -EINVAL;
	free(text);
	return err;
}

void uprobe_pmu__attr(struct perf_event_attr *a, int type, bool retprobe, int retprobe_bit,
		      const char *path, uint64_t off)
{
	a->type = (uint32_t)type;
	a->config = retprobe ? 1ULL << retprobe_bit : 0;
	a->config1 = (uint64_t)(uintptr_t)path;	/* uprobe_path */
	a->config2 = off;			/* probe_offset */
}
