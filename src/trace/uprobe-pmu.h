/*
 * uprobe-pmu: uprobes through perf's "uprobe" PMU, without tracefs.
 *
 * Under lockdown=confidentiality tracefs is closed, yet perf_event_open
 * with the uprobe PMU (/sys/bus/event_source/devices/uprobe/type; config1
 * the path, config2 the file offset, the config bit named by
 * format/retprobe for a return probe) still plants a uprobe: the kernel
 * checks LOCKDOWN_TRACEFS only on the tracefs files.  Such a probe has no
 * fetchargs: what a spec fetches must come from the user registers the
 * sample carries (PERF_SAMPLE_REGS_USER, taken at the breakpoint).  So a
 * spec's fetchargs are translated here: "%di:u64" is register rdi,
 * "$retval" is rax at a return probe; a fetcharg that reads memory
 * ("+0(%dx)") cannot be translated, and the spec gives a "pmu" twin for
 * that probe (probe-spec.h).
 *
 * To the tools such a probe looks like its tracefs twin: the session
 * builds a payload from the sampled registers with the fields a tracefs
 * uprobe would have, described by a format text that libtraceevent
 * parses, so the fields are read by name as always (and recorded, and
 * replayed, the same way).
 */
#ifndef FAULTLINE_UPROBE_PMU_H
#define FAULTLINE_UPROBE_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

struct pmu_args;

/**
 * pmu_args__parse() - what a spec's fetchargs read, as sampled registers
 * @fetchargs: space-separated "name=value" in tracefs syntax (may be "")
 * @retprobe:  whether the probe is a return probe ($retval allowed)
 * @out:       receives a new object (pmu_args__free()); NULL on error
 *
 * Values: %REG[:TYPE] with REG one of ax bx cx dx si di bp sp ip r8..r15
 * (or their r-prefixed names, rdi, rax...), and $retval[:TYPE] (rax);
 * TYPE u8..u64, s8..s64, x8..x64 (default x64 as in tracefs: unsigned).
 * Return: 0; -EOPNOTSUPP for a value the PMU cannot give (memory,
 * $stack, $comm, strings), with which in @eb; -EINVAL; -ENOMEM.
 */
int pmu_args__parse(const char *fetchargs, bool retprobe, struct pmu_args **out,
		    struct errbuf *eb);
void pmu_args__free(struct pmu_args *a);

/* The PERF_SAMPLE_REGS_USER mask (bits PERF_REG_X86_*) the args need. */
uint64_t pmu_args__regs_mask(const struct pmu_args *a);

/**
 * pmu_args__format() - the format text of an event with these args, as
 * tracefs would show it for a uprobe: the common fields, then each arg
 * @text: receives a malloc'ed NUL-terminated text, owned by the caller
 * Return: 0, -ENOMEM.
 */
int pmu_args__format(const struct pmu_args *a, const char *event, char **text);

/* Bytes of the payload pmu_args__fill() writes. */
size_t pmu_args__raw_size(const struct pmu_args *a);

/**
 * pmu_args__fill() - the payload of one sample
 * @regs, @regs_mask: the sample's user registers: regs[i] is the i-th set
 *                    bit of @regs_mask
 * @buf: at least pmu_args__raw_size() bytes
 * Return: 0; -ENOENT when a register the args need was not sampled.
 */
int pmu_args__fill(const struct pmu_args *a, const uint64_t *regs, uint64_t regs_mask,
		   int32_t pid, void *buf);

/**
 * uprobe_pmu__retprobe_bit() - the config bit of a return probe, from
 * <sysfs>/bus/event_source/devices/uprobe/format/retprobe ("config:0")
 * Return: 0; -ENOENT (no such file: this PMU has no return probes);
 * -EINVAL (another syntax).
 */
int uprobe_pmu__retprobe_bit(const char *sysfs, int *bit);

/**
 * uprobe_pmu__attr() - set @a's type and config for a uprobe on @path at
 * file offset @off; @path must stay valid until perf_event_open returns
 * (the kernel copies it then).
 */
void uprobe_pmu__attr(struct perf_event_attr *a, int type, bool retprobe, int retprobe_bit,
		      const char *path, uint64_t off);

#endif
