#!/bin/sh
# untrusted-files.sh: files named by a recording are opened non-blocking
# and read only when regular.  A recording of a program run from a copy
# that is a FIFO by report time (the file replaced) must not hang report,
# which gives the same figures as before, the frames in the copy unnamed.
# (The perf map's FIFO, symlink and foreign owner: tests/unit/test-jitmap.)
. "$top_srcdir/tests/system/lib.sh"
need_root
FL_TIMEOUT=60
mkdir -p "$T/bin"
cp "$(target leak-target)" "$T/bin/leak-target"

run_fl record -e leak -o "$T/leak.rec" -c "$T/bin/leak-target leaks"
expect_eq "$rc" 0 "record status ($(head -n 1 "$T/err"))"
run_fl report -i "$T/leak.rec" leak -T 100
expect_eq "$rc" 0 "report status ($(head -n 1 "$T/err"))"
grep '^  outstanding: ' "$T/out" >"$T/before"
expect_line 'leak_malloc_small\+' "$T/out"
rm "$T/bin/leak-target"
mkfifo "$T/bin/leak-target"
run_fl report -i "$T/leak.rec" leak -T 100
expect_eq "$rc" 0 "report with the binary a FIFO: status ($(head -n 1 "$T/err"))"
grep '^  outstanding: ' "$T/out" >"$T/after"
[ -s "$T/before" ] && cmp -s "$T/before" "$T/after" ||
	fail "report with the binary a FIFO: '$(cat "$T/after")', before: '$(cat "$T/before")'"
expect_no_line 'leak_malloc_small\+' "$T/out"
echo "RESULT report, binary a FIFO: $(cat "$T/after")"
pass_or_fail
