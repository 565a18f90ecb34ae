#!/bin/sh
# el7-tmpfs.sh (guest, RHEL 7's 3.10): a uprobe on a file in tmpfs cannot
# be enabled there (3.10 reads the probed instruction through the file's
# readpage, which tmpfs lacks: EIO).  leak -p of leak-target running with
# a copy of libc in /tmp (tmpfs, by LD_LIBRARY_PATH; the target waits on a
# FIFO) must fail with one line naming the cause and the remedy, never
# "Input/output error" alone, and leave no probe behind.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
[ "$(awk '$2 == "/tmp" { print $3 }' /proc/mounts)" = tmpfs ] || fail "/tmp is not tmpfs"
D=/tmp/el7-tmpfs.$$
mkdir -p "$D"
trap 'st=$?; rm -rf "$D"; (exit $st); _fl_exit' EXIT
cp /lib/x86_64-linux-gnu/libc.so.6 "$D/"
go_fifo tmpfs
spawn_at_fifo target env LD_LIBRARY_PATH="$D" "$LT" leaks --go "$fifo"
grep -q "$D/libc.so.6" "/proc/$spawned/maps" || fail "the target did not map $D/libc.so.6"
tpid=$spawned
# It must refuse before tracing; should it trace, the target is released
# once it says so, and the run ends when the target does.
spawn fl "$FAULTLINE" leak -p "$tpid"
ended_or_tracing() { _fl_gone "$1" || grep -q '^Tracing' "$T/fl.err"; }
wait_until 120 ended_or_tracing "$spawned"
release "$fifo"
wait_exit "$spawned" "faultline leak -p"
expect_eq "$rc" 1 "leak -p of a program using a tmpfs libc: exit status"
wait_exit "$tpid" "leak-target"
cp "$T/fl.err" "$T/err"
cat "$T/err"
expect_eq "$(grep -c . "$T/err")" 1 "lines on stderr"
expect_line 'tmpfs' "$T/err"
expect_line 'copy the program' "$T/err"
assert_no_stale_probes
echo "RESULT tmpfs el7: $(cat "$T/err")"
pass_or_fail
