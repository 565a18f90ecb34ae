#!/bin/sh
# System test: after the other tests, tracefs holds no faultline probes.
#
# Listed last in Makefile.am's SYSTEM_TESTS, so with the serial harness it
# runs after every test that created probes. Stricter than the check each
# test makes at exit: a faultline_* group, or events/faultline_* directory,
# may exist only while its pid is a live faultline process (/proc/PID/comm);
# any other group is a leak, because nothing would ever remove it and its
# uprobes would keep firing in every process that maps the probed file.

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

reported=
for g in $(_fl_groups); do
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
	case $reported in *" $g "*) continue ;; esac
	owner_live "$g" || fail "event directory 'events/$g' left in tracefs"
done

pass_or_fail
