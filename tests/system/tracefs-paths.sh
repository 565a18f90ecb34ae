#!/bin/sh
# tracefs-paths.sh: libraries whose paths the tracefs command syntax cannot
# carry are traced exactly, and nothing of their paths reaches tracefs as
# a command.  The target's libc is a copy under a directory named "sp ace"
# (a space split the probe line: "cannot create probe"), and one under a
# name whose newlines, written raw, would delete a probe of this test's
# own group (fltest_PID/canary) and add another (fltest_PID/inj): after
# each run the group's lines are what they were before.  Each on the
# tracefs rung, the hostile one on the uprobe PMU too; leak's figures are
# the target's own (check_sites).
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
dir=$(tracing_dir) || skip "no tracefs"
[ -w "$dir/dynamic_events" ] || skip "no dynamic_events (kernel before 5.0)"
LT=$(target leak-target)
libc=$(ldd "$LT" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || skip "leak-target links no libc.so.6"
grp=fltest_$$

own_lines() { grep -F ":$grp/" "$dir/dynamic_events" | sort || :; }
cleanup_own() { echo "-:$grp/canary" >>"$dir/dynamic_events" 2>/dev/null || :; echo "-:$grp/inj" >>"$dir/dynamic_events" 2>/dev/null || :; }
trap 'cleanup_own; _fl_exit' EXIT

echo "p:$grp/canary /bin/true:0x0" >>"$dir/dynamic_events" || skip "cannot create a uprobe"
own_lines >"$T/own.before"
expect_eq "$(wc -l <"$T/own.before")" 1 "the canary probe"

mkdir -p "$T/sp ace" "$T/plain"
cp "$libc" "$T/sp ace/libc.so.6"
# The first line of the write would be "p:faultline_N/malloc_enter
# $T/evil:0x0", a valid probe on the regular file $T/evil; the next two
# the deletion and the addition.
cp /bin/true "$T/evil"
nl='
'
hostile="$T/evil:0x0$nl-:$grp/canary${nl}p:$grp/inj /bin/true:0x0${nl}z"
mkdir -p "$hostile"
cp "$libc" "$hostile/libc.so.6"
# The loader splits LD_LIBRARY_PATH at ':': the target finds the hostile
# copy through a symlink, which maps the very inode.
ln -s "$hostile/libc.so.6" "$T/plain/libc.so.6"

run_case() { # WHAT LIBDIR PROBEPATH [MASK]
	FAULTLINE_MASK=${4:-}
	export FAULTLINE_MASK
	run_fl leak -T 100 -O "$3" -c "env 'LD_LIBRARY_PATH=$2' $LT leaks"
	unset FAULTLINE_MASK
	expect_eq "$rc" 0 "$1: status ($(head -n 1 "$T/err"))"
	check_sites "$1"
	own_lines >"$T/own.after"
	cmp -s "$T/own.before" "$T/own.after" || fail "$1: group $grp changed: $(cat "$T/own.after")"
}
run_case "sp ace" "$T/sp ace" "$T/sp ace/libc.so.6"
run_case "newlines" "$T/plain" "$hostile/libc.so.6"
if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	run_case "newlines, uprobe PMU" "$T/plain" "$hostile/libc.so.6" tracefs
fi

# -p: the library found in the process's maps (which show a newline as
# "\012"), under "sp ace" and under the hostile name.
check_p() { # WHAT LIBDIR MAPPED
	local fn bb c got n=0
	go_fifo p
	spawn_at_fifo target env "LD_LIBRARY_PATH=$2" "$LT" prealloc --go "$fifo"
	grep -qF "$(printf '%s' "$3" | sed 's/$/\\012/' | tr -d '\n' | sed 's/\\012$//')" \
		"/proc/$spawned/maps" || fail "-p $1: the target does not map the copy"
	run_fl_go "$fifo" leak -T 100 -p "$spawned"
	expect_eq "$rc" 0 "-p $1: status ($(head -n 1 "$T/err"))"
	expect_line ', lost 0 events' "$T/out"
	sites_of "$T/out" >"$T/sites"
	for line in $(sed -n 's/^site fn=\([a-z_]*\) bytes=\([0-9]*\) count=\([0-9]*\)$/\1:\2:\3/p' "$T/target.out"); do
		fn=${line%%:*}; bb=${line#*:}; c=${bb#*:}; bb=${bb%%:*}
		got=$(awk -v f="$fn" '$1 == f { print $2, $3 }' "$T/sites")
		expect_eq "$got" "$bb $c" "-p $1: $fn (bytes allocations)"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "-p $1: no site in the target's truth"
	echo "RESULT -p $1: target says $(grep '^site' "$T/target.out" | tr '\n' ' '); leak: $(grep 'late_leak' -B1 "$T/out" | head -n 1)"
	wait_exit "$spawned" "-p $1: target"
	own_lines >"$T/own.after"
	cmp -s "$T/own.before" "$T/own.after" || fail "-p $1: group $grp changed"
}
check_p "sp ace" "$T/sp ace" "$T/sp ace/libc.so.6"
check_p newlines "$T/plain" "$hostile/libc.so.6"
pass_or_fail
