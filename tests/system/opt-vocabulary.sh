#!/bin/sh
# faultline(1)'s OPTION VOCABULARY lists (between its BEGIN/END
# opt-vocabulary lines) are what scripts/opt-vocabulary makes from the
# built faultline's tables (`faultline CMD --list-opts`, and -h for the
# text): a command's option added, renamed or given another letter without
# the page refreshed fails here, with the command that refreshes it.
# No root needed.
. "$top_srcdir/tests/system/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "no python3"
page=$top_srcdir/docs/man/faultline.1.in
script=$top_srcdir/scripts/opt-vocabulary
grep -qx '\.\\" END opt-vocabulary' "$page" || fail "faultline.1.in has no END opt-vocabulary line"
cp "$page" "$T/page"
python3 "$script" "$FAULTLINE" --update "$T/page" || fail "scripts/opt-vocabulary failed"
# The block is not empty: --pid, taken by most commands, is in it.
grep -q '^\.BI "\\-\\-pid " "PID"$' "$T/page" || fail "the generated lists lack --pid"
if ! cmp -s "$page" "$T/page"; then
	diff -u "$page" "$T/page" | head -n 40
	fail "faultline(1)'s option vocabulary is stale; refresh it with: scripts/opt-vocabulary $top_builddir/faultline --update docs/man/faultline.1.in"
fi
pass_or_fail
