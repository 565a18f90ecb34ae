/*
 * report: output pieces every tool shares: symbolized stacks in BCC's text
 * layout, FlameGraph folded lines, JSON strings, wall-clock stamps, and the
 * footer that accounts for what was lost.  Symbolization happens here, at
 * report time, only for what is printed.
 */
#ifndef FAULTLINE_REPORT_H
#define FAULTLINE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct session;

struct report {
	struct session *s;
	FILE *out;
	uint64_t frames;	/* frames printed */
	uint64_t unknown;	/* of which not named */
	bool srcline;		/* --srcline: file:line and inlined frames */
	/* ,"time":"HH:MM:SS","interval":N of a tool reporting every
	 * interval (report__json_stamp), appended to each JSON object it
	 * prints; "" otherwise. */
	char stamp[64];
	/* Rendered stacks, so a stack printed again (a snoop tool prints the
	 * same few stacks thousands of times) costs one write.  Keyed by
	 * process, stack id and layout; dropped when the process's code
	 * mappings change (addrspaces__code_generation). */
	struct hashmap *rendered;
	size_t nrendered;
};

void report__init(struct report *r, struct session *s, FILE *out, bool srcline);
/* A report of a tool printing every interval: its wall-clock @clock
 * (HH:MM:SS) and its number @interval (1 for the first), which every JSON
 * object of it carries (r->stamp; the lost and summary objects here). */
void report__json_stamp(struct report *r, const char *clock, unsigned long interval);
/* Free the rendering cache.  NULL-safe. */
void report__fini(struct report *r);

/* Frames of a stack, innermost first, each on its own line after indent;
 * with addrs, "0x%016lx\t" before the symbol as BCC memleak does.  An empty
 * stack prints "[stack information lost]".  These three name a stack of
 * pid's in the image it was taken in (session__stack_pid: a stack from
 * before an exec in the program of then). */
void report__stack(struct report *r, pid_t pid, uint32_t stack_id, const char *indent, bool addrs);
/* "comm;outermost;...;innermost count\n" (FlameGraph's stackcollapse form);
 * comm is the image's when the stack is from before an exec. */
void report__folded(struct report *r, pid_t pid, const char *comm, uint32_t stack_id,
		    uint64_t weight);
/* A JSON array of frames, innermost first: {"addr":"0x..","sym":"func+0x1a
 * [module]","func":..,"off":N,"module":..} (func, off, module null when
 * unknown), with --srcline also "file", "line" and "inlined":[{"func",
 * "file","line"}..] (docs/json-schema.md). */
void report__stack_json(struct report *r, pid_t pid, uint32_t stack_id);
/* x86-64: the kernel's half of the address space, where a frame is the
 * kernel's. */
#define REPORT_KERNEL_START 0xffff800000000000ULL
struct sym_result;
/* Frame @ip of a stack of @pid's, as the stacks above name it, into @res:
 * a return address unless the innermost (@is_return: looked up at ip - 1,
 * its offset that of ip itself), a kernel address in the kernel's
 * symbols; func and module NULL when unknown.  Counts nothing (for a
 * view of its own: cmd/out/live-top). */
void report__frame_sym(struct session *s, pid_t pid, uint64_t ip, bool is_return,
		       struct sym_result *res);
/* HH:MM:SS of a sample time. */
void report__clock(const struct session *s, uint64_t sample_time, char *buf, size_t n);
/*
 * report__lost_first() - before any result, say that events were lost and
 * what that does to the figures that follow
 * @tool:    the command, for the warning on stderr
 * @meaning: in the tool's own terms, e.g. "allocations and frees were
 *           missed: some blocks shown may have been freed, and some
 *           allocations are missing"
 *
 * When the session lost events: text "WARNING: lost N events: MEANING;
 * REMEDY" (lost__remedy: the options that would have lost none); json a
 * first object {"type":"lost","lost":N,"message":"MEANING","remedy":...};
 * folded nothing on the output (its lines are FlameGraph's input).  And
 * "faultline TOOL: warning: lost N events: MEANING; REMEDY" on stderr, once per
 * count: a tool reporting every interval repeats it only when more were
 * lost.  Nothing when none was lost.  Returns the number lost.
 */
uint64_t report__lost_first(struct report *r, bool json, bool folded, const char *tool,
			    const char *meaning);
/* The accounting footer: samples, lost events, bad records, unknown frames
 * (text: one line "N samples, lost N events, ...", the counts with
 * thousands separators, "1,234" (lib/numfmt); json: a summary object of
 * raw integers). */
void report__footer(struct report *r, bool json);
/* A frame a tool printed in its own layout (heap's heaptrack text):
 * counted in the footer's frames, and in its unknown ones unless @named. */
void report__count_frame(struct report *r, bool named);
/* The over-time tables' columns after the whole's: ", and of the stacks
 * ranked #1..#N below" for @top stacks, "... the stack ranked #1 below"
 * for one, "" for none.  A static string. */
const char *report__ranked(size_t top);

#endif
