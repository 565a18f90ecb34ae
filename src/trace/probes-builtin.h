/*
 * probes-builtin: the probe specs of probes/NAME.probes, compiled into the
 * binary (src/trace/probes-builtin.c is generated from them by Makefile.am), so
 * that faultline alone, copied to a host, has every spec it ships with.
 * probe_set__load_named() falls back to them when no directory has the
 * file: a spec file found on disk still wins.
 */
#ifndef FAULTLINE_PROBES_BUILTIN_H
#define FAULTLINE_PROBES_BUILTIN_H

#include <stddef.h>

struct probe_builtin {
	const char *name;	/* "glibc" for probes/glibc.probes */
	const char *text;	/* the file's text */
};

/* Ends with { NULL, NULL }. */
extern const struct probe_builtin probe_builtins[];

#endif
