/*
 * opt-table: a command's options declared once, one row each (perf's
 * parse-options style), and what is derived from the rows: getopt's short
 * string and long table, the usage synopsis, the -h text, and the list
 * bash completion reads (--list-opts).  Plain data and printing to a
 * stream the caller gives; it calls libc only.  cmd/tool-opts.c parses
 * with it; the shared options (-p, -c, ...) are rows of its own table.
 */
#ifndef FAULTLINE_OPT_TABLE_H
#define FAULTLINE_OPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct option;

/* Where a parsed option goes (struct tool_option.to). */
enum tool_option_to {
	TOOL_OPTION_END,	/* the table's end */
	TOOL_OPTION_CALL,	/* the command's opt(key, value, ctx) */
	TOOL_OPTION_FLAG,	/* the bool at ctx + off set true */
	TOOL_OPTION_SHARED,	/* a shared option (tool-opts.c), key its TOOL_SHARED_* */
};

/* Row flags. */
#define TOOL_OPTION_REQUIRED	(1u << 0)	/* in the synopsis without brackets */


/*
 * One option: its letter and long name (either may be absent, not both),
 * the placeholder of its value (NULL: it takes none; "PID", "N", or
 * alternatives "size|count", which completion offers), its help (lines
 * split by '\n'), and where it goes.
 */
struct tool_option {
	enum tool_option_to to;
	char letter;
	const char *name;
	const char *arg;
	const char *help;
	int key;		/* CALL: opt()'s key; SHARED: TOOL_SHARED_* */
	size_t off;		/* FLAG: offsetof the bool in ctx */
	unsigned int flags;	/* TOOL_OPTION_* above */
};

/* A row calling the command's opt(key, value, ctx). */
#define OPT_CALL(l, long_, arg_, key_, help_) \
	{ .to = TOOL_OPTION_CALL, .letter = (l), .name = (long_), .arg = (arg_), .help = (help_), \
	  .key = (key_) }
/* A row that sets the bool field of the ctx's type true. */
#define OPT_BOOLEAN(l, long_, type, field, help_) \
	{ .to = TOOL_OPTION_FLAG, .letter = (l), .name = (long_), .help = (help_), \
	  .off = offsetof(type, field) }
/* A shared option placed here, with the command's own help for it (NULL:
 * the shared help). */
#define OPT_SHARED(key_, help_) { .to = TOOL_OPTION_SHARED, .key = (key_), .help = (help_) }
#define OPT_END { .to = TOOL_OPTION_END }

/*
 * The rows a command line is parsed with, in -h's order: the command's
 * own, and the shared ones it takes (tool-opts.c chooses them).
 */
#define OPT_TABLE_MAX 64
struct opt_table {
	struct tool_option row[OPT_TABLE_MAX];	/* copies: a placed shared row has its help */
	bool shared[OPT_TABLE_MAX];	/* row i is a shared option */
	size_t n;
};

/* getopt_long's val of row i's long name: apart from every letter. */
#define OPT_TABLE_VAL(i) (0x1000 + (int)(i))

/*
 * opt_table__getopt - getopt's tables of @t
 * @in_order: options end at the first positional argument ("+")
 * @shortopts: room for 3 * OPT_TABLE_MAX + 2
 * @longopts: room for OPT_TABLE_MAX + 1 (NULL-terminated)
 */
void opt_table__getopt(const struct opt_table *t, bool in_order, char *shortopts,
		       struct option *longopts);

/* The row getopt_long's return @c is, or -1. */
int opt_table__row_of(const struct opt_table *t, int c);

/* The row named @word ("-p", "--pid"), or -1. */
int opt_table__find(const struct opt_table *t, const char *word);

/*
 * What a command's synopsis and -h say besides the rows.
 */
struct opt_text {
	const char *usage_name;	/* "report -i FILE diff"; the synopsis's command */
	const char *args;	/* its positionals: "[duration]", "OLD"; "" none */
	const char *also;	/* further synopsis lines, each "faultline ..." */
	const char *intro;	/* before the options, as it is */
	const char *args_help;	/* the positionals' entries: "WORD\tHELP\n"... */
	const char *notes;	/* after everything, as it is */
	bool runs_cmd;		/* "[-- CMD [ARG]...]" and its entry after -c */
};

/* The synopsis: "usage: faultline NAME [-p PID] ... ARGS", wrapped. */
void opt_table__usage(const struct opt_table *t, const struct opt_text *x, FILE *f);
/* -h: the synopsis, then each row "  -p, --pid PID  help" and the rest. */
void opt_table__help(const struct opt_table *t, const struct opt_text *x, FILE *f);
/* --list-opts: a line per row, "-p,--pid<TAB>PID" ("-" when it takes no
 * value), then "--<TAB>CMD" when a command follows "--". */
void opt_table__list(const struct opt_table *t, const struct opt_text *x, FILE *f);

#endif
