#!/bin/sh
# tracefs-paths.sh: libraries whose paths the tracefs command syntax cannot
# carry are traced exactly, and nothing of their paths reaches tracefs as
# a command.  The target's libc is a copy under a directory named "sp ace"
# (a space split the probe line: "cannot create probe"), and one under a
# name whose newlines, written raw, would delete a probe of this test's
# own group (fltest_PID/canary) and add another (fltest_PID/inj).  Each on
# the tracefs rung, the hostile one on the uprobe PMU too; leak's figures
# are the target's own (check_sites).
#
# tracefs holds nothing but what faultline meant: while each run traces
# (its target held on a FIFO), every line of dynamic_events in its group
# (faultline_PID) is a probe of glibc.probes, once, with that probe's type
# and fetchargs, on the file through /proc/PID/fd/N (the PMU rung: no
# line), and the lines of every other group but faultline_* are those of
# before; after each run the whole of dynamic_events is what it was at the
# start, but for the groups of other faultline processes (another may run
# beside this test: faultline_PID of a PID this test did not start).
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
at_exit 'cleanup_own'
# dynamic_events without the groups of faultline processes this test did
# not start (their pids are not in $T/.fl-pids), sorted.
all_lines() {
	awk -v ours=" $(tr '\n' ' ' <"$T/.fl-pids" 2>/dev/null) " '{
		g = $1; sub(/^[^:]*:/, "", g); sub(/\/.*/, "", g)
		if (g ~ /^faultline_/ && !(g ~ /^faultline_[0-9]+$/ && index(ours, " " substr(g, 11) " ")))
			next
		print
	}' "$dir/dynamic_events" | sort
}
# Lines of no faultline group at all.
foreign() { grep -v '^[^ :]*:faultline_' "$1" || :; }
# "TYPE:EVENT ARGS" of each probe of glibc.probes, as dynamic_events
# shows its line once TYPE:GROUP/EVENT PATH:OFFSET is taken out.
awk '$1 == "probe" { a = ""; for (i = 5; i <= NF; i++) a = a " " $i
	print ($3 == "return" ? "r" : "p") ":" $2 a }' "$FAULTLINE_PROBES_DIR/glibc.probes" >"$T/spec"
grep -q '^p:malloc_enter ' "$T/spec" || skip "no malloc_enter in glibc.probes"

# during WHAT FLPID PATHRE: dynamic_events while faultline FLPID traces:
# its group's lines are glibc.probes' probes, each once, on a path PATHRE
# matches (none for the PMU rung: PATHRE empty); no other group but
# faultline's has changed since the start.
during() {
	local n
	cp "$dir/dynamic_events" "$T/during"
	grep -F ":faultline_$2/" "$T/during" >"$T/fl.during" || :
	n=$(grep -c . "$T/fl.during")
	if [ -z "$3" ]; then
		expect_eq "$n" 0 "$1: lines of faultline_$2 in dynamic_events (the PMU rung)"
	else
		[ "$n" -ge 3 ] || fail "$1: only $n lines of faultline_$2 in dynamic_events"
		sed -E "s|^([pr]):faultline_$2/([a-z_]+) $3:0x[0-9a-f]{16}( .*)?\$|\1:\2\3|" \
			"$T/fl.during" >"$T/fl.norm"
		if grep -vxF -f "$T/spec" "$T/fl.norm" >"$T/fl.stray"; then
			fail "$1: lines of faultline_$2 that are no probe of glibc.probes on $3:"
			sed 's/^/  /' "$T/fl.stray"
		fi
		[ -z "$(cut -d' ' -f1 "$T/fl.norm" | sort | uniq -d)" ] ||
			fail "$1: a probe written twice: $(cut -d' ' -f1 "$T/fl.norm" | sort | uniq -d)"
		grep -q '^p:malloc_enter ' "$T/fl.norm" || fail "$1: no malloc_enter probe"
		echo "RESULT $1: $n lines of faultline_$2 while tracing, each a probe of glibc.probes on $3"
	fi
	foreign "$T/during" | sort >"$T/foreign.during"
	cmp -s "$T/foreign.before" "$T/foreign.during" ||
		fail "$1: lines of other groups changed while tracing: $(diff "$T/foreign.before" "$T/foreign.during" | grep '^[<>]')"
}
# after WHAT: dynamic_events is what it was at the start.
after() {
	all_lines >"$T/all.after"
	cmp -s "$T/all.before" "$T/all.after" ||
		fail "$1: dynamic_events changed: $(diff "$T/all.before" "$T/all.after" | grep '^[<>]')"
}

echo "p:$grp/canary /bin/true:0x0" >>"$dir/dynamic_events" || skip "cannot create a uprobe"
own_lines >"$T/own.before"
expect_eq "$(wc -l <"$T/own.before")" 1 "the canary probe"
all_lines >"$T/all.before"
foreign "$T/all.before" | sort >"$T/foreign.before"

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

# The target waits at its --end FIFO once its work is done: faultline
# still traces then.
at_end() { tg=$(pgrep -P "$1" -x leak-target) && _fl_at_fifo "$tg"; }
run_case() { # WHAT LIBDIR PROBEPATH [MASK]
	local fl
	FAULTLINE_MASK=${4:-}
	export FAULTLINE_MASK
	go_fifo end
	spawn fl "$FAULTLINE" leak -T 100 -O "$3" -c "env 'LD_LIBRARY_PATH=$2' $LT leaks --end $fifo"
	fl=$spawned
	unset FAULTLINE_MASK
	wait_until "$FL_READY_TIMEOUT" at_end "$fl" ||
		fail "$1: the target never reached its --end FIFO: $(cat "$T/fl.err")"
	if [ -n "${4:-}" ]; then
		during "$1" "$fl" ""
	else
		during "$1" "$fl" "/proc/$fl/fd/[0-9]+"
	fi
	release "$fifo"
	wait_exit "$fl" "$1"
	cp "$T/fl.out" "$T/out"
	expect_eq "$rc" 0 "$1: status ($(head -n 1 "$T/fl.err"))"
	check_sites "$1"
	own_lines >"$T/own.after"
	cmp -s "$T/own.before" "$T/own.after" || fail "$1: group $grp changed: $(cat "$T/own.after")"
	after "$1"
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
	tpid=$spawned
	spawn flp "$FAULTLINE" leak -T 100 -p "$tpid"
	flp=$spawned
	wait_ready "$T/flp.err" "-p $1"
	during "-p $1" "$flp" "/proc/$flp/fd/[0-9]+"
	release "$fifo"
	wait_exit "$flp" "-p $1: faultline"
	cp "$T/flp.out" "$T/out"
	cp "$T/flp.err" "$T/err"
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
	wait_exit "$tpid" "-p $1: target"
	own_lines >"$T/own.after"
	cmp -s "$T/own.before" "$T/own.after" || fail "-p $1: group $grp changed"
	after "-p $1"
}
check_p "sp ace" "$T/sp ace" "$T/sp ace/libc.so.6"
check_p newlines "$T/plain" "$hostile/libc.so.6"
pass_or_fail
