/*
 * tool-shared: what a tool takes from another, declared here and nowhere
 * else: flamegraph runs the heap and faults tools and reads their results
 * through the hooks below; heap and flamegraph choose on leak's ladder,
 * flamegraph -f on faults'; cachetop on the rungs of cache's (its events).
 * Each is defined in the tool's own cmd-*.c.
 */
#ifndef FAULTLINE_TOOL_SHARED_H
#define FAULTLINE_TOOL_SHARED_H

#include <stdbool.h>
#include <stdio.h>

struct heap_profile;
struct ladder;
struct session;
struct tool;

extern const struct tool heap_tool;
extern const struct tool faults_tool;
extern const struct ladder leak_ladder;
extern const struct ladder faults_ladder;
extern const struct ladder cachetop_ladder;

/*
 * faults__folded() - a faults tool's counts as folded stacks
 * @st: the state of a faults_tool that ran (for flamegraph)
 * @major: weighted by major faults, else by every fault
 * @out: gets one "comm;frame;...;frame COUNT" line per stack
 *
 * Return: 0, the tool's handlers' error, or -EIO when @out failed.
 */
int faults__folded(void *st, struct session *s, bool major, FILE *out);

/*
 * heap__profile() - a heap tool's count of allocations (for flamegraph)
 * @st: the state of a heap_tool that ran
 * @hp: gets its profile, owned by @st
 *
 * Return: 0, or the error its handlers or its allocation trace met.
 */
int heap__profile(void *st, struct heap_profile **hp);

#endif
