/*
 * faultline ffaults: page faults on file-backed memory, counted by file
 * (ffaults.bt from BPF Performance Tools), with the major ones: which
 * files a process pages in from disk.
 *
 * Sources (its ladder, before ffaults_tool):
 *   filemap     filemap:mm_filemap_fault (device, inode, page index): the
 *               faults that reach the page cache's fault handler; a page
 *               mapped by fault-around alongside another is not one.  The
 *               file's path is the one the faulting process maps at that
 *               device and inode.
 *   mapping     every user fault (exceptions:page_fault_user, else the
 *               page-faults software event), looked up in the process's
 *               mappings: those that land in a file mapping count.
 * Either way the major-faults software event, looked up the same way,
 * gives the MAJOR column.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <linux/perf_event.h>

#include "lib/json.h"
#include "stack/addrspace.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/keyed.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "ffaults"

struct ffile {
	uint32_t maj, min;
	uint64_t ino;
	uint64_t faults, major;
	char path[256];
};

struct ffaults_state {
	struct tool_opts *o;
	struct tp_field f_addr, f_ino, f_dev;
	struct keyed *files;	/* (dev << 40) ^ ino -> struct ffile */
	uint64_t unnamed;	/* file faults whose mapping was not found */
	int err;
};

static uint64_t file_key(uint32_t maj, uint32_t min, uint64_t ino)
{
	return ((uint64_t)maj << 52) ^ ((uint64_t)min << 40) ^ ino;
}

static struct ffile *file_of(struct ffaults_state *st, const struct map *m)
{
	int created;
	struct ffile *f = keyed__get(st->files, file_key(m->maj, m->min, m->ino), &created);

	if (!f) {
		st->err = -ENOMEM;
		return NULL;
	}
	if (created) {
		f->maj = m->maj;
		f->min = m->min;
		f->ino = m->ino;
		snprintf(f->path, sizeof(f->path), "%s", m->path);
	}
	return f;
}

/* The file mapping of @pid at @addr, or NULL (anonymous, [heap]...). */
static const struct map *file_map(struct session *s, pid_t pid, uint64_t addr)
{
	const struct map *m = addrspaces__find(session__addrspaces(s), pid, addr);

	return m && m->ino && m->path && m->path[0] == '/' ? m : NULL;
}

static void on_fault_addr(struct ffaults_state *st, struct session *s, pid_t pid, uint64_t addr,
			  bool major)
{
	const struct map *m = file_map(s, pid, addr);
	struct ffile *f;

	if (!m)
		return;
	f = file_of(st, m);
	if (!f)
		return;
	if (major)
		f->major++;
	else
		f->faults++;
}

static void on_fault_tp(struct session *s, const struct sample *smp, void *ctx)
{
	struct ffaults_state *st = ctx;
	uint64_t addr = 0;

	if (!tp_field__u64(&st->f_addr, smp->raw, smp->raw_size, &addr))
		on_fault_addr(st, s, (pid_t)smp->pid, addr, false);
}

static void on_fault_sw(struct session *s, const struct sample *smp, void *ctx)
{
	on_fault_addr(ctx, s, (pid_t)smp->pid, smp->addr, false);
}

static void on_major(struct session *s, const struct sample *smp, void *ctx)
{
	on_fault_addr(ctx, s, (pid_t)smp->pid, smp->addr, true);
}

/* filemap:mm_filemap_fault: the file by device and inode, named by the
 * faulting process's mapping of it. */
static void on_filemap_fault(struct session *s, const struct sample *smp, void *ctx)
{
	struct ffaults_state *st = ctx;
	uint64_t ino = 0, dev = 0;
	const struct map *maps;
	size_t n = 0;
	struct ffile *f;

	if (tp_field__u64(&st->f_ino, smp->raw, smp->raw_size, &ino) ||
	    tp_field__u64(&st->f_dev, smp->raw, smp->raw_size, &dev))
		return;
	/* The kernel's dev_t: major in the high 12 bits of 32. */
	f = keyed__find(st->files, file_key((uint32_t)(dev >> 20), (uint32_t)(dev & 0xfffff), ino));
	if (!f) {
		maps = addrspaces__maps(session__addrspaces(s), (pid_t)smp->pid, &n);
		for (size_t i = 0; i < n && !f; i++)
			if (maps[i].ino == ino && maps[i].maj == (uint32_t)(dev >> 20) &&
			    maps[i].min == (uint32_t)(dev & 0xfffff) && maps[i].path)
				f = file_of(st, &maps[i]);
	}
	if (f)
		f->faults++;
	else
		st->unnamed++;
}

static int cmp_file(const void *a, const void *b, void *ctx)
{
	const struct ffile *x = a, *y = b;

	(void)ctx;
	if (x->faults != y->faults)
		return x->faults > y->faults ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int ffaults_report(void *ctx, struct session *s)
{
	struct ffaults_state *st = ctx;
	struct report r;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	report__init(&r, s, stdout, false);
	keyed__sort(st->files, cmp_file, NULL);
	report__lost_first(&r, st->o->json, false, TOOL,
			   "file faults were missed: the counts below are low");
	if (!st->o->json)
		printf("%10s %10s  %s\n", "FAULTS", "MAJOR", "FILE");
	for (size_t i = 0; i < keyed__count(st->files); i++) {
		const struct ffile *f = keyed__at(st->files, i);

		if (st->o->json) {
			printf("{\"type\":\"file\",\"path\":");
			json__str(stdout, f->path);
			printf(",\"dev\":\"%u:%u\",\"ino\":%" PRIu64 ",\"faults\":%" PRIu64
			       ",\"major\":%" PRIu64 "}\n", f->maj, f->min, f->ino, f->faults, f->major);
		} else {
			printf("%10" PRIu64 " %10" PRIu64 "  %s\n", f->faults, f->major, f->path);
		}
	}
	if (st->unnamed && !st->o->json)
		printf("%10" PRIu64 " %10s  [file faults whose mapping was already gone]\n",
		       st->unnamed, "-");
	report__footer(&r, st->o->json);
	report__fini(&r);
	return EXIT_OK;
}

static int ffaults_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			      struct errbuf *eb)
{
	struct ffaults_state *st = ctx;
	struct tp_event *ev = NULL;
	int err;

	(void)label;
	if (ladder__is(rung, "filemap")) {
		err = session__add_tracepoint(s, "filemap", "mm_filemap_fault", 0, on_filemap_fault,
					      st, &ev, eb);
		if (!err && (tp_event__field(ev, "i_ino", &st->f_ino) ||
			     tp_event__field(ev, "s_dev", &st->f_dev)))
			err = errbuf__set(eb, -ENOENT, "filemap:mm_filemap_fault lacks i_ino/s_dev");
	} else if (features__has_tracepoint(session__features(s), "exceptions", "page_fault_user")) {
		err = session__add_tracepoint(s, "exceptions", "page_fault_user", 0, on_fault_tp, st,
					      &ev, eb);
		if (!err && tp_event__field(ev, "address", &st->f_addr))
			err = errbuf__set(eb, -ENOENT, "exceptions:page_fault_user lacks 'address'");
	} else {
		err = session__add_software(s, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
					    SESSION_SAMPLE_ADDR, on_fault_sw, st, eb);
	}
	if (!err)
		err = session__add_software(s, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					    SESSION_SAMPLE_ADDR, on_major, st, eb);
	return err;
}

static const struct tool_cmdline ffaults_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_UNWIND,
};

static int ffaults_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			char **argv)
{
	struct ffaults_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &ffaults_cmdline, NULL, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	st->files = keyed__new(sizeof(struct ffile));
	return st->files ? 0 : -ENOMEM;
}

static void ffaults_fini(void *ctx)
{
	keyed__free(((struct ffaults_state *)ctx)->files);
}

/* ffaults: the page cache's own fault tracepoint first; else every fault,
 * kept when its address lies in a file mapping. */
static const char *const ffaults_filemap_needs[] = {
	"tp:filemap:mm_filemap_fault", "feat:perf_events", NULL
};
static const char *const ffaults_mapping_needs[] = { "feat:perf_events", NULL };

static const struct rung ffaults_rungs[] = {
	{ .key = "filemap", .label = "tracepoint filemap:mm_filemap_fault + software major-faults",
	  .needs = ffaults_filemap_needs, .loses = "" },
	{ .key = "mapping", .label = "every user fault, looked up in the process's file mappings",
	  .needs = ffaults_mapping_needs,
	  .loses = "counts pages mapped by fault-around too, not only page-cache faults" },
};

static const struct ladder ffaults_ladder = LADDER("ffaults", ffaults_rungs);

const struct tool ffaults_tool = {
	.cmdline = &ffaults_cmdline,
	.name = TOOL,
	.ladder = &ffaults_ladder,
	.what = "file-backed page faults",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	.size = sizeof(struct ffaults_state),
	.init = ffaults_init,
	.add_events = ffaults_add_events,
	.report = ffaults_report,
	.fini = ffaults_fini,
};
