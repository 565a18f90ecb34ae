#!/bin/sh
# System test: after the other tests, tracefs holds no faultline probes.
#
# Listed last in Makefile.am's SYSTEM_TESTS, so with the serial harness it
# runs after every test that created probes. Stricter than the check each
# test makes at exit: it sees what a test's exit missed (a process that
# outlived its test), and the event directories too.  A group of a
# faultline the suite ran (faultline_PID, PID in the pids lib.sh gathered
# in $fl_suite_pids) may exist only while PID is a live faultline process
# (/proc/PID/comm); any other is a leak, because nothing would ever remove
# it and its uprobes would keep firing in every process that maps the
# probed file.  Groups of faultline processes the suite did not run
# (another user's, a killed session's) are not the suite's to judge.

. "$top_srcdir/tests/system/lib.sh"

need_root
fl_exit_probe_check=0

# faultline mounts tracefs itself when it is missing; if nothing is mounted
# now, no probe can exist.
if ! dir=$(tracing_dir); then
	echo "no tracefs mounted: no probes can exist"
	pass_or_fail
fi
echo "tracing dir: $dir"

# Status 0 if $1 is a faultline_<pid> name whose pid is a running faultline.
owner_live() {
	local pid comm
	pid=${1#faultline_}
	case $pid in
	'' | *[!0-9]*) return 1 ;;
	esac
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
	[ "$comm" = faultline ]
}

# The suite's pids, then a fresh log for the next run.
ours=$T/suite-pids
sort -u "$fl_suite_pids" >"$ours" 2>/dev/null || : >"$ours"
rm -f "$fl_suite_pids"
echo "$(wc -l <"$ours") faultline runs in the suite"
[ -s "$ours" ] || skip "no faultline run logged before this test (it checks what the suite left: run it last)"
by_suite() { grep -qx "${1#faultline_}" "$ours"; }

reported=
for g in $(_fl_groups); do
	by_suite "$g" || continue
	if owner_live "$g"; then
		echo "group '$g' belongs to a running faultline: allowed"
		continue
	fi
	reported="$reported $g "
	fail "faultline probe group '$g' left in tracefs:"
	faultline_probes | grep -F ":$g/" | sed 's/^/  /'
done

# An event directory can outlive its line in *_events only through a kernel
# or libtracefs bug, but it is what perf_event_open users see: check it too.
for e in "$dir"/events/faultline*; do
	[ -d "$e" ] || continue
	g=${e##*/}
	by_suite "$g" || continue
	case $reported in *" $g "*) continue ;; esac
	owner_live "$g" || fail "event directory 'events/$g' left in tracefs"
done

pass_or_fail
