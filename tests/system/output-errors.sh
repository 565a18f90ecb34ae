#!/bin/sh
# Output files: a write that fails is said with its own errno (a full
# device is "No space left on device", not stdio's "Input/output error"),
# in one line, exit 1; `-o -` is stdout (flamegraph's page, record's
# recording), with nothing else in it (the command's output goes to
# stderr) and no file named '-'.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ -w /dev/full ] || skip "no /dev/full"
LT=$(target leak-target)
TP=$(target touch-pages)

one_line() {	# WHAT REGEX
	expect_eq "$rc" 1 "$1: exit status"
	expect_eq "$(grep -c . "$T/err")" 1 "$1: lines on stderr"
	expect_line "$2" "$T/err"
	return 0
}

run_fl record -e leak,faults -o "$T/r.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record status"

# The page of each kind, to a full device.
run_fl report -i "$T/r.rec" flamegraph -o /dev/full
one_line "flamegraph -o /dev/full" "^faultline flamegraph: cannot write '/dev/full': No space left on device$"
run_fl report -i "$T/r.rec" flamegraph -e faults -o /dev/full
one_line "flamegraph -e faults -o /dev/full" "^faultline flamegraph: cannot write '/dev/full': No space left on device$"

# Every output file is made as a recording is: a new temporary beside it,
# renamed over it once written (never through a symlink: the symlink is
# replaced, its target untouched), mode 0666 less the umask, nothing left
# beside it.  For flamegraph, pprof and heap's histogram.
mkdir "$T/safe" || exit 99
echo victim >"$T/victim"
for what in flamegraph pprof; do
	ln -s "$T/victim" "$T/safe/$what.out"
	(umask 027 && exec "$FAULTLINE" report -i "$T/r.rec" "$what" -o "$T/safe/$what.out") \
		>"$T/$what.o" 2>&1 || fail "$what -o over a symlink: $(cat "$T/$what.o")"
	[ -L "$T/safe/$what.out" ] && fail "$what -o: the symlink is still there"
	expect_eq "$(stat -c %a "$T/safe/$what.out")" 640 "$what -o: mode under umask 027"
done
grep -q '<!DOCTYPE html>' "$T/safe/flamegraph.out" || fail "flamegraph -o over a symlink: no page"
expect_eq "$(cat "$T/victim")" victim "the symlink's target, after -o over it"
run_fl report -i "$T/r.rec" heap -H "$T/safe/hist.out"
expect_eq "$rc" 0 "heap -H FILE: status"
[ -s "$T/safe/hist.out" ] || fail "heap -H FILE: no histogram"
expect_eq "$(ls -A "$T/safe" | sort | tr '\n' ' ')" "flamegraph.out hist.out pprof.out " \
	"what the outputs' directory holds"

# -o -: the page on stdout, the same page as -o FILE.
run_fl report -i "$T/r.rec" flamegraph -o "$T/page.html"
expect_eq "$rc" 0 "flamegraph -o FILE: status"
cd "$T" || exit 99
run_fl report -i "$T/r.rec" flamegraph -o -
expect_eq "$rc" 0 "flamegraph -o -: status"
[ -e "$T/-" ] && fail "flamegraph -o -: made a file named '-'"
cmp -s "$T/out" "$T/page.html" || fail "flamegraph -o -: stdout is not the page -o FILE writes"
# Live, with a command that prints: its lines go to stderr, not the page.
run_fl flamegraph -o - -c "$LT leaks"
expect_eq "$rc" 0 "flamegraph -o - -c: status"
head -c 15 "$T/out" | grep -q '^<!DOCTYPE html>' || fail "flamegraph -o - -c: stdout is not a page"
grep -q '^site fn=' "$T/out" && fail "flamegraph -o - -c: the command's output is in the page"
grep -q '=' "$T/err" || fail "flamegraph -o - -c: the command's output is not on stderr"

# record -o -: the recording on stdout, read back the same as a file's.
run_fl record -e faults -o - -c "$TP --pages 64"
expect_eq "$rc" 0 "record -o -: status"
[ -e "$T/-" ] && fail "record -o -: made a file named '-'"
mv "$T/out" "$T/stdout.rec"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of faults in stdout, ' "$T/err"
expect_line '^pages=64$' "$T/err"
run_fl report -i "$T/stdout.rec" faults --json
expect_eq "$rc" 0 "report of record -o -: status"
faults=$(python3 -c '
import json, sys
n = sum(o.get("faults", 0) for o in map(json.loads, open(sys.argv[1]))
        if o.get("type") == "stack" and o["stack"] and
        any(f["sym"].startswith("touch") for f in o["stack"]))
print(n)' "$T/out")
# touch-pages maps its pages with huge pages off: one fault each.
expect_eq "$faults" 64 "record -o -: faults in touch_all, which touched 64 fresh pages"
# Through a pipe, as `record -o - | ssh host 'cat >r.rec'` would.
rc=0
"$FAULTLINE" record -e faults -o - -c "$TP --pages 64" 2>"$T/err" | cat >"$T/piped.rec" || rc=$?
expect_eq "$rc" 0 "record -o - | cat: status"
run_fl report -i "$T/piped.rec" info
expect_eq "$rc" 0 "report of record -o - | cat: status"
# Not to a terminal, when there is one to try.
if command -v script >/dev/null 2>&1; then
	script -qec "'$FAULTLINE' record -e faults -o - -c true" /dev/null >"$T/tty" 2>&1 || :
	grep -q "faultline record: -o - would write the recording to a terminal" "$T/tty" ||
		fail "record -o - to a terminal: $(head -n 2 "$T/tty")"
fi
pass_or_fail
