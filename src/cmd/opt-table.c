/*
 * opt-table: getopt's tables, the synopsis, -h and --list-opts, all
 * derived from one table of option rows (opt-table.h).  libc only.
 */
#include <getopt.h>
#include <string.h>

#include "cmd/opt-table.h"

#define WIDTH 80		/* -h's lines end before this column */
#define LEFT_MAX 20		/* a longer option column: its text below it */

void opt_table__getopt(const struct opt_table *t, bool in_order, char *shortopts,
		       struct option *longopts)
{
	size_t ns = 0, nl = 0;

	if (in_order)
		shortopts[ns++] = '+';
	for (size_t i = 0; i < t->n; i++) {
		const struct tool_option *r = &t->row[i];

		if (r->letter) {
			shortopts[ns++] = r->letter;
			if (r->arg)
				shortopts[ns++] = ':';
		}
		if (r->name)
			longopts[nl++] = (struct option){ r->name, r->arg ? required_argument : no_argument,
							  NULL, OPT_TABLE_VAL(i) };
	}
	shortopts[ns] = '\0';
	longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
}

int opt_table__row_of(const struct opt_table *t, int c)
{
	if (c >= OPT_TABLE_VAL(0) && c < OPT_TABLE_VAL(t->n))
		return c - OPT_TABLE_VAL(0);
	for (size_t i = 0; c > 0 && c < 256 && i < t->n; i++)
		if (t->row[i].letter == c)
			return (int)i;
	return -1;
}

int opt_table__find(const struct opt_table *t, const char *word)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct tool_option *r = &t->row[i];

		if (word[0] == '-' && word[1] == '-' && r->name && !strcmp(word + 2, r->name))
			return (int)i;
		if (word[0] == '-' && r->letter && word[1] == r->letter && !word[2])
			return (int)i;
	}
	return -1;
}

/* "-p, --pid PID", "-T", "--probes SPEC" into @buf. */
static size_t spell(const struct tool_option *r, char *buf, size_t n)
{
	int len;

	if (r->letter && r->name)
		len = snprintf(buf, n, "-%c, --%s%s%s", r->letter, r->name, r->arg ? " " : "",
			       r->arg ? r->arg : "");
	else if (r->letter)
		len = snprintf(buf, n, "-%c%s%s", r->letter, r->arg ? " " : "", r->arg ? r->arg : "");
	else
		len = snprintf(buf, n, "--%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
	return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* The synopsis's item of a row: "[-p PID]", "-o FILE". */
static void item(const struct tool_option *r, char *buf, size_t n)
{
	bool opt = !(r->flags & TOOL_OPTION_REQUIRED);

	if (r->letter)
		snprintf(buf, n, "%s-%c%s%s%s", opt ? "[" : "", r->letter, r->arg ? " " : "",
			 r->arg ? r->arg : "", opt ? "]" : "");
	else
		snprintf(buf, n, "%s--%s%s%s%s", opt ? "[" : "", r->name, r->arg ? " " : "",
			 r->arg ? r->arg : "", opt ? "]" : "");
}

/* Print @word on the synopsis line at *col, wrapped under @indent. */
static void put_item(FILE *f, const char *word, size_t *col, size_t indent)
{
	size_t len = strlen(word);

	if (!len)
		return;
	if (*col + 1 + len >= WIDTH && *col > indent) {
		fprintf(f, "\n%*s", (int)indent, "");
		*col = indent;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(word, f);
	*col += len;
}

void opt_table__usage(const struct opt_table *t, const struct opt_text *x, FILE *f)
{
	char buf[128];
	size_t col, indent;

	col = (size_t)fprintf(f, "usage: faultline %s", x->usage_name);
	indent = col + 1 < 40 ? col + 1 : 16;
	for (size_t i = 0; i < t->n; i++) {
		/* -h is said by every command alike; the synopsis leaves it out. */
		if (t->shared[i] && t->row[i].letter == 'h')
			continue;
		item(&t->row[i], buf, sizeof(buf));
		put_item(f, buf, &col, indent);
	}
	put_item(f, x->args ? x->args : "[duration]", &col, indent);
	if (x->runs_cmd)
		put_item(f, "[-- CMD [ARG]...]", &col, indent);
	fputc('\n', f);
	if (x->also)
		fprintf(f, "       %s\n", x->also);
}

/* @text, its words wrapped at WIDTH from column @col (the first line
 * already at @col); '\n' is a space. */
static void put_text(FILE *f, const char *text, size_t col)
{
	size_t at = col;
	bool first = true;

	while (*text) {
		size_t len;

		text += strspn(text, " \n");
		len = strcspn(text, " \n");
		if (!len)
			break;
		if (!first && at + 1 + len >= WIDTH) {
			fprintf(f, "\n%*s", (int)col, "");
			at = col;
		} else if (!first) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, len, f);
		at += len;
		text += len;
		first = false;
	}
	fputc('\n', f);
}

/* One entry: "  LEFT  text", or LEFT alone and the text below it. */
static void entry(FILE *f, const char *left, const char *text, size_t col)
{
	size_t len = strlen(left);

	if (len + 4 <= col)
		fprintf(f, "  %-*s", (int)(col - 2), left);
	else
		fprintf(f, "  %s\n%*s", left, (int)col, "");
	put_text(f, text ? text : "", col);
}

/* The positionals' entries: "WORD<TAB>text" lines. */
static void args_entries(FILE *f, const char *s, size_t col)
{
	char word[64], text[512];

	while (*s) {
		size_t len = strcspn(s, "\n"), w = strcspn(s, "\t\n");

		if (w < len && w < sizeof(word) && len - w - 1 < sizeof(text)) {
			memcpy(word, s, w);
			word[w] = '\0';
			memcpy(text, s + w + 1, len - w - 1);
			text[len - w - 1] = '\0';
			entry(f, word, text, col);
		}
		s += len + (s[len] == '\n');
	}
}

void opt_table__help(const struct opt_table *t, const struct opt_text *x, FILE *f)
{
	char buf[128];
	size_t w = 0, col;

	opt_table__usage(t, x, f);
	if (x->intro)
		fputs(x->intro, f);
	for (size_t i = 0; i < t->n; i++) {
		size_t len = spell(&t->row[i], buf, sizeof(buf));

		if (len <= LEFT_MAX && len > w)
			w = len;
	}
	col = w + 4;
	for (size_t i = 0; i < t->n; i++) {
		spell(&t->row[i], buf, sizeof(buf));
		entry(f, buf, t->row[i].help, col);
		if (x->runs_cmd && t->shared[i] && t->row[i].letter == 'c')
			entry(f, "-- CMD ARGS", "the same, CMD's arguments passed as they are (no "
			      "shell parsing); after every other option", col);
	}
	if (x->args_help)
		args_entries(f, x->args_help, col);
	else if (!x->args)
		entry(f, "duration", "stop after this many seconds", col);
	if (x->notes)
		fputs(x->notes, f);
}

void opt_table__list(const struct opt_table *t, const struct opt_text *x, FILE *f)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct tool_option *r = &t->row[i];

		if (r->letter)
			fprintf(f, "-%c%s", r->letter, r->name ? "," : "");
		if (r->name)
			fprintf(f, "--%s", r->name);
		fprintf(f, "\t%s\n", r->arg ? r->arg : "-");
	}
	if (x->runs_cmd)
		fprintf(f, "--\tCMD\n");
}
