#!/bin/sh
# uprobe-tmpfs.sh: a kernel that can place a uprobe in a file on tmpfs
# (this 6.x) traces it as any other.  probe-group checks such a file once
# (3.10 cannot: tests/vm/el7-tmpfs.sh); here the check must pass and change
# nothing: leak -p of leak-target running with a copy of libc on a tmpfs
# mounted here (LD_LIBRARY_PATH; the target waits on a FIFO), every site
# of the target's own account exact.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
LT=$(target leak-target)
LIBC=$(ldd "$LT" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$LIBC" ] || skip "leak-target links no libc.so.6 that ldd shows"
D=$T/tmpfs
mkdir -p "$D"
mount -t tmpfs -o size=64m faultline-test "$D" || skip "cannot mount a tmpfs"
trap 'st=$?; umount "$D" 2>/dev/null; (exit $st); _fl_exit' EXIT
[ "$(stat -f -c %T "$D")" = tmpfs ] || fail "$D is not tmpfs"
cp "$LIBC" "$D/libc.so.6"
go_fifo tmpfs
spawn_at_fifo target env LD_LIBRARY_PATH="$D" "$LT" leaks --go "$fifo"
grep -q " $D/libc.so.6\$" "/proc/$spawned/maps" || fail "the target did not map $D/libc.so.6"
run_fl_go "$fifo" leak -T 100 -p "$spawned"
expect_eq "$rc" 0 "leak -p of a program using a tmpfs libc: exit status"
wait_exit "$spawned" "leak-target"
cat "$T/target.out" >>"$T/out"
check_sites "tmpfs libc"
assert_no_stale_probes
pass_or_fail
