#!/bin/sh
# The version comes from one place, configure.ac's AC_INIT (PACKAGE_VERSION,
# passed here by Makefile.am): `faultline --version` and `faultline version`
# print it (so does `faultline CMD --version`), a recording names it, and
# no source file spells it out.
. "$top_srcdir/tests/system/lib.sh"
: "${FAULTLINE_VERSION:?FAULTLINE_VERSION must be set (run through make check)}"

for arg in --version version; do
	run_fl "$arg"
	expect_eq "$rc" 0 "faultline $arg: exit status"
	expect_eq "$(cat "$T/out")" "faultline $FAULTLINE_VERSION" "faultline $arg"
	[ -s "$T/err" ] && fail "faultline $arg wrote to stderr: $(cat "$T/err")"
done
# Right after any command of the table (as --help lists it), as git and
# perf take it.
commands=$("$FAULTLINE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$commands" | wc -l)" -ge 20 ] || fail "--help lists too few commands: $commands"
for c in $commands; do
	run_fl "$c" --version
	expect_eq "$rc" 0 "faultline $c --version: exit status"
	expect_eq "$(cat "$T/out")" "faultline $FAULTLINE_VERSION" "faultline $c --version"
	[ -s "$T/err" ] && fail "faultline $c --version wrote to stderr: $(cat "$T/err")"
done
expect_eq "$(sed -n 's/^AC_INIT(\[faultline\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")" \
	"$FAULTLINE_VERSION" "configure.ac's AC_INIT version"

# Hard-coded copies: the version as a C or shell string anywhere but
# configure.ac.
hits=$(grep -rnF -e "\"$FAULTLINE_VERSION\"" -e "'$FAULTLINE_VERSION'" \
	"$top_srcdir/src" "$top_srcdir/compat" "$top_srcdir/scripts" "$top_srcdir/tests/system" \
	2>/dev/null || :)
[ -z "$hits" ] || fail "the version is spelled out outside configure.ac: $hits"

# A recording names the faultline that wrote it.
if [ "$(id -u)" -eq 0 ]; then
	run_fl record -e brk -o "$T/rec" -- /bin/true
	expect_eq "$rc" 0 "record: exit status"
	"$FAULTLINE" report -i "$T/rec" info >"$T/info" 2>&1 || fail "report info: exit status $?"
	expect_line "^faultline +$FAULTLINE_VERSION\$" "$T/info"
fi
pass_or_fail
