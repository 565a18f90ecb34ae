#!/bin/sh
# A target with nothing to trace is refused in one line, never traced to
# an empty report: -p of a kernel thread (kthreadd, pid 2: no user space,
# no maps, /proc/2/exe unreadable), for the tools that trace user space
# (leak, faults, brk, record); a kernel-side tool (reclaim) still takes
# it.  No probe is left behind.
. "$top_srcdir/tests/system/lib.sh"
need_root

# kthreadd is pid 2 in every PID namespace the kernel starts; be sure.
flags=$(sed 's/.*) //' /proc/2/stat 2>/dev/null | cut -d' ' -f7)
[ -n "$flags" ] && [ $((flags & 0x00200000)) -ne 0 ] || skip "pid 2 is not a kernel thread here"

for tool in leak faults brk record; do
	o=
	[ "$tool" = record ] && o="-o $T/k.rec"
	# shellcheck disable=SC2086 # $o is two words or none
	run_fl "$tool" $o -p 2 5
	expect_eq "$rc" 1 "$tool -p 2: exit status"
	expect_line "^faultline $tool: pid 2 is a kernel thread: no user space to trace$" "$T/err"
	expect_eq "$(grep -c "^faultline $tool: .*kernel thread" "$T/err")" 1 "$tool -p 2: said once (record may also say why it left leak out)"
	expect_no_line 'Ctrl-C to end' "$T/err"
	[ -s "$T/out" ] && fail "$tool -p 2: a report on stdout: $(head -n 2 "$T/out")"
done
# A kernel tool of that process: accepted (and ends at its duration).
run_fl reclaim -p 2 1
expect_eq "$rc" 0 "reclaim -p 2: exit status"
expect_no_line 'kernel thread' "$T/err"
assert_no_stale_probes
pass_or_fail
