#!/bin/sh
# The man pages (docs/man/*.1, made by configure from *.1.in): each has the
# sections BCC asks of a tool's page, names every option of its command's
# table (`faultline CMD --list-opts`: each row by one of its spellings; -h,
# --help and --quiet are faultline(1)'s), and its OPTIONS entries name no option the
# table lacks (as git's t0450 holds its docs to the usage texts).
# Each renders with man -l without a warning.  faultline(1) names every
# command.  No root needed.
. "$top_srcdir/tests/system/lib.sh"
command -v man >/dev/null 2>&1 || skip "no man (man-db)"
MANDIR=$top_builddir/docs/man
pages=$(ls "$MANDIR"/*.1 2>/dev/null) || :
[ -n "$pages" ] || fail "no pages in $MANDIR"

# A command's table: one row a line, its spellings space-separated ("-p
# --pid"); -h, --help and "--" (the command after the options) left out.
table_rows() {
	"$FAULTLINE" "$@" --list-opts >"$T/list" || fail "faultline $* --list-opts failed"
	cut -f1 "$T/list" | grep -vx -e '-h,--help' -e '--quiet' -e '--' | tr ',' ' '
}

for page in $pages; do
	name=${page##*/}
	name=${name%.1}
	# The page's text, roff escapes of - and font changes undone.
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page" >"$T/$name.txt"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT EXAMPLES OVERHEAD 'EXIT STATUS' 'SEE ALSO'; do
		grep -qx "\.SH $s" "$T/$name.txt" || fail "$name(1): no section $s"
	done
	MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$T/$name.warn"
	[ -s "$T/$name.warn" ] && fail "$name(1): man -l warns: $(head -n 3 "$T/$name.warn")"
	grep -q '@[A-Z_]*@' "$page" && fail "$name(1): an unsubstituted @VAR@"
	case $name in
	faultline)
		"$FAULTLINE" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' >"$T/want"
		[ -s "$T/want" ] || fail "faultline --help lists no commands"
		printf '%s\n' --help --version >>"$T/want"
		;;
	faultline-report)
		{
			table_rows report
			table_rows report -i /dev/null timeline
			table_rows report -i /dev/null diff
			table_rows report -i /dev/null pprof
		} | sort -u >"$T/want"
		;;
	*)
		table_rows "${name#faultline-}" >"$T/want" ;;
	esac
	[ -s "$T/want" ] || fail "$name(1): its command has no option"
	# Every row, by one of its spellings.
	while IFS= read -r row; do
		named=0
		for o in $row; do
			grep -qE -- "(^|[^-A-Za-z0-9])$o([^-A-Za-z0-9]|\$)" "$T/$name.txt" && named=1
		done
		[ "$named" -eq 1 ] || fail "$name(1) does not name '$row', an option of its command"
	done <"$T/want"
	# No OPTIONS entry (the tag line after .TP) names an option it lacks.
	[ "$name" = faultline ] && continue
	# (-h and --help: every command's, left out of the rows.)
	{ tr ' ' '\n' <"$T/want"; printf '%s\n' -h --help; } | sort -u >"$T/spellings"
	awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH / { on = 0 } on && tag { print; tag = 0 } on && /^\.TP/ { tag = 1 }' \
		"$T/$name.txt" | grep -oE '(^|[ ",])--?[A-Za-z][-A-Za-z0-9]*' | tr -d ' ",' | sort -u >"$T/tags"
	while IFS= read -r o; do
		grep -qxF -- "$o" "$T/spellings" ||
			fail "$name(1): its OPTIONS list '$o', which its command does not take"
	done <"$T/tags"
done

# Every page faultline(1) refers to exists.
sed -n 's/^\.BR faultline-\([a-z]*\) (1).*/\1/p' "$T/faultline.txt" | sort -u >"$T/refs"
while IFS= read -r c; do
	[ -f "$MANDIR/faultline-$c.1" ] || fail "faultline(1) refers to faultline-$c(1), which is not built"
done <"$T/refs"
pass_or_fail
