# oom-timeline-lib.sh: the setting of oom-timeline.sh and
# oom-timeline-record.sh, sourced after lib.sh.
# oom_timeline_setup NAME: skip (77) without PSI, the memcg reclaim
# tracepoints, a cgroup v1 memory controller or a cgroup2 mount; else
# CG1, a v1 memcg limited to 64 MiB, and CG2, a new v2 group (its PSI),
# both removed at exit with CACHE (a page-cache file on a block device).
# totals: CG2's memory.pressure totals, "some full ".
oom_timeline_setup() {
	[ -r /proc/pressure/memory ] || skip "no /proc/pressure/memory (a kernel without PSI, or psi=0)"
	[ -d /sys/kernel/tracing/events/vmscan/mm_vmscan_memcg_reclaim_begin ] ||
		skip "no vmscan:mm_vmscan_memcg_reclaim_begin tracepoint: no memcg reclaim to see"
	MEMCG_ROOT=$(memcg_v1_root)
	[ -n "$MEMCG_ROOT" ] || skip "no cgroup v1 memory controller to set a limit in"
	V2_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$V2_ROOT" ] || skip "no cgroup2 mount: no per-cgroup PSI here"
	block_backed_dir
	CACHE=$block_dir/$1.$$.cache
	CG1=$MEMCG_ROOT$(memcg_v1_own)/$1.$$
	CG2=$V2_ROOT/$1.$$
	mkdir "$CG1" || skip "cannot create a memory cgroup at $CG1"
	mkdir "$CG2" || { rmdir "$CG1"; skip "cannot create a cgroup v2 group at $CG2"; }
	at_exit 'rm -f "$CACHE"; empty_cg "$CG1"; empty_cg "$CG2"'
	[ -r "$CG2/memory.pressure" ] || skip "$CG2 has no memory.pressure"
	echo $((64 << 20)) >"$CG1/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"
}

totals() { awk '{ sub("total=", "", $5); printf "%s ", $5 }' "$CG2/memory.pressure"; }
