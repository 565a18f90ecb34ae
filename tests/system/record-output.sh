#!/bin/sh
# record-output.sh: `record -o FILE` makes FILE safely.  The recording is
# written to a new temporary beside FILE and renamed over it once tracing
# has started: a symlink at FILE is replaced, never followed (its target
# unchanged); an old file's mode 0644 does not survive (the recording is
# 0600, whatever the umask); a run that fails before tracing (no event
# source for brk under a mask) keeps the old file as it was; a second
# record to the same FILE at once is refused with one line, while the
# first goes on; a lock left by a SIGKILLed record does not block the
# next; a FIFO at FILE is written, not replaced, once a reader opens it
# (record waits for one), and so is a flame graph page; a FIFO swapped
# for a hard link to someone's file between faultline's lstat and its
# open (open-hook makes that race certain) is refused, the file
# untouched.  Nothing else is left in the directory.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
need_root
D=$T/out.d
mkdir "$D" || fail "mkdir $D"
listing() { (cd "$D" && ls -A | tr '\n' ' '); }

# A symlink at FILE, to a file of someone else's.
echo secret >"$D/target"
ln -s target "$D/link.rec"
run_fl record -e brk -o "$D/link.rec" -c true
expect_eq "$rc" 0 "record over a symlink: status"
expect_eq "$(cat "$D/target")" secret "the symlink's target"
[ -L "$D/link.rec" ] && fail "the symlink is still there"
expect_eq "$(stat -c %a "$D/link.rec")" 600 "record over a symlink: mode"
run_fl report -i "$D/link.rec" info
expect_eq "$rc" 0 "report of the recording made over a symlink"

# An old recording of mode 0644, and a umask that would not narrow it.
echo old >"$D/old.rec"
chmod 644 "$D/old.rec"
(umask 0; exec "$FAULTLINE" record -e brk -o "$D/old.rec" -c true) >"$T/out" 2>"$T/err" ||
	fail "record over an old file: $(cat "$T/err")"
expect_eq "$(stat -c %a "$D/old.rec")" 600 "record over a 0644 file: mode"

# A run that fails before tracing keeps the old file.
echo old >"$D/keep.rec"
FAULTLINE_MASK='syscalls:*,uprobes,uprobe_pmu' run_fl record -e brk -o "$D/keep.rec" -c true
expect_eq "$rc" 125 "record without an event source: status (faultline failed, a command given)"
expect_eq "$(cat "$D/keep.rec")" old "the old file after a run that failed"

# Two records to one FILE at once: the second is refused.
spawn first "$FAULTLINE" record -e brk -a -o "$D/busy.rec"
first=$spawned
wait_ready "$T/first.err" "the first record"
run_fl record -e brk -a -o "$D/busy.rec" 1
expect_eq "$rc" 1 "a second record to the same file: status"
expect_eq "$(grep -c . "$T/err")" 1 "a second record to the same file: one line"
expect_line "^faultline record: '$D/busy.rec' is being written by another faultline \(it holds '$D/\.busy\.rec\.lock'\)$" "$T/err"
kill -INT "$first"
wait_exit "$first" "the first record"
expect_stopped INT record "$T/first.err" "the first record"
run_fl report -i "$D/busy.rec" info
expect_eq "$rc" 0 "report of the first record's file"
expect_no_line "ends early" "$T/err"

# A lock left behind (its holder SIGKILLed) is taken over.
: >"$D/.stale.rec.lock"
run_fl record -e brk -o "$D/stale.rec" -c true
expect_eq "$rc" 0 "record beside a stale lock: status"

# A FIFO at FILE (a reader's pipe) is written as it is, not replaced.  A
# reader left waiting in its open (faultline failed before opening) is
# let go by fifo_unblock once faultline has exited: no wait without end.
mkfifo "$D/pipe.rec"
cat "$D/pipe.rec" >"$T/piped.rec" &
reader=$!
run_fl record -e brk -o "$D/pipe.rec" -c true
expect_eq "$rc" 0 "record into a FIFO: status"
fifo_unblock "$D/pipe.rec"
wait "$reader"
[ -p "$D/pipe.rec" ] || fail "the FIFO was replaced"
run_fl report -i "$T/piped.rec" info
expect_eq "$rc" 0 "report of what the FIFO carried"
rm "$D/pipe.rec"

# A FIFO with no reader yet: record waits at its open, as open(2) does,
# and writes once a reader comes (faultline seen blocked in the FIFO's
# open first: no clock).
mkfifo "$D/late.rec"
spawn late "$FAULTLINE" record -e brk -o "$D/late.rec" -c true
late=$spawned
if wait_until "$FL_READY_TIMEOUT" _fl_at_fifo "$late"; then
	cat "$D/late.rec" >"$T/late-piped.rec"
else
	fail "record never waited for the FIFO's reader: $(cat "$T/late.err")"
fi
wait_exit "$late" "record into a FIFO read late"
expect_eq "$rc" 0 "record into a FIFO read late: status"
run_fl report -i "$T/late-piped.rec" info
expect_eq "$rc" 0 "report of what the late-read FIFO carried"
rm "$D/late.rec"

# A report's page into a FIFO (a reader's pipe) is written as well; the
# recording is the golden alloc-a (a heap's: flamegraph's input).
gzip -dc "$top_srcdir/tests/golden/data/alloc-a.rec.gz" >"$T/a.rec" || fail "alloc-a.rec.gz"
mkfifo "$D/page.html"
cat "$D/page.html" >"$T/page.html" &
reader=$!
run_fl report -i "$T/a.rec" flamegraph -o "$D/page.html"
expect_eq "$rc" 0 "flamegraph into a FIFO: status"
fifo_unblock "$D/page.html"
wait "$reader"
expect_line '</html>' "$T/page.html"
[ -p "$D/page.html" ] || fail "the flame graph's FIFO was replaced"
rm "$D/page.html"

# The FIFO swapped, between faultline's lstat and its open, for a hard
# link to a file of someone's (open-hook stops faultline at the entry of
# that open and swaps it then): before, that file was opened O_WRONLY and
# a recording written over its start; now the opened inode is checked
# against lstat's and the run refused in one line, the file untouched.
echo secret >"$D/victim"
chmod 644 "$D/victim"
swap() { # WHAT STATUS PATH ARGS...
	local what=$1 st=$2 p=$3
	shift 3
	rm -f "$p"
	mkfifo "$p"
	echo "+ open-hook $p (swap) faultline $*"
	rc=0
	"$(target open-hook)" "$p" "rm '$p' && ln '$D/victim' '$p'" "$FAULTLINE" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_line '^open-hook: hooked$' "$T/err"
	expect_eq "$rc" "$st" "$what: status"
	expect_eq "$(grep -vc '^open-hook:' "$T/err")" 1 "$what: lines on stderr"
	expect_line "^faultline [a-z]+: '$p' was replaced while it was opened: not writing it\$" "$T/err"
	expect_eq "$(cat "$D/victim")" secret "$what: the file swapped in"
	rm -f "$p"
}
swap "record into a swapped FIFO" 125 "$D/swap.rec" record -e brk -o "$D/swap.rec" -c true
swap "flamegraph into a swapped FIFO" 1 "$D/swap.html" report -i "$T/a.rec" flamegraph -o "$D/swap.html"
rm "$D/victim"

expect_eq "$(listing)" "busy.rec keep.rec link.rec old.rec stale.rec target " "what the directory holds"
assert_no_stale_probes
pass_or_fail
