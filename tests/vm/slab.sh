#!/bin/sh
# slab.sh (guest): `faultline slab` on slab-target, which creates and stats
# 2,000 files: its dentry allocations are 2,000 to 2,100 (the loader's library
# search adds negative dentries on a cold cache: 20 in the 6.1 guest) on this kernel's
# kmem_cache_alloc (by the cache's name, or where it has none by call
# site, caller:__d_alloc), and -g puts them under d_alloc in the open
# path's lookup.  The same from a recording (format 1.1), whose own KSYM
# records name the callers and the frames: kallsyms is not read.
. "$top_srcdir/tests/system/lib.sh"
need_root
ST=$(target slab-target)
[ -r /proc/slabinfo ] || skip "no readable /proc/slabinfo"
# Before kmem_cache_alloc carried the cache's name (6.1 has none), the
# dentries are __d_alloc's allocations.
cache=dentry
grep -q 'field:__data_loc char\[\] name' "$(tracing_dir)/events/kmem/kmem_cache_alloc/format" ||
	cache=caller:__d_alloc
# check_allocs WHAT: $T/out's last total of $cache is 2000 to 2100.
check_allocs() {
	n=$(grep "\"type\":\"cache\",\"time\":\"[^\"]*\",\"interval\":[0-9]*,\"name\":\"$cache\"" "$T/out" | tail -n 1 | sed 's/.*"total_allocs":\([0-9]*\).*/\1/')
	[ -n "$n" ] && [ "$n" -ge 2000 ] && [ "$n" -le 2100 ] || fail "$1: $cache allocations '$n', want 2000 to 2100"
	echo "RESULT $1: 2000 files, $n allocations of $cache"
}
mkdir "$T/files"
run_fl slab --json -C "$cache" -c "$ST $T/files --files 2000"
expect_eq "$rc" 0 "slab status"
check_allocs slab
rm -rf "$T/files"
mkdir "$T/files"
run_fl slab -C "$cache" -g -c "$ST $T/files --files 2000"
expect_eq "$rc" 0 "slab -g status"
expect_line '^  _*d_alloc\+0x[0-9a-f]+ \[kernel.kallsyms\]$' "$T/out"
expect_line '^  (path_openat|lookup_open|d_alloc_parallel)\+0x[0-9a-f]+ \[kernel.kallsyms\]$' "$T/out"
echo "RESULT slab -g: $(grep -c 'd_alloc' "$T/out") d_alloc frames"
rm -rf "$T/files"
mkdir "$T/files"
run_fl record -e slab -o "$T/slab.rec" -c "$ST $T/files --files 2000"
expect_eq "$rc" 0 "record -e slab status"
run_fl report -i "$T/slab.rec" slab --json -C "$cache"
expect_eq "$rc" 0 "report slab status"
check_allocs "report slab"
run_fl report -i "$T/slab.rec" slab -C "$cache" -g
expect_eq "$rc" 0 "report slab -g status"
expect_line '^  _*d_alloc\+0x[0-9a-f]+ \[kernel.kallsyms\]$' "$T/out"
expect_no_line 'kallsyms' "$T/err"
rm -rf "$T/files"
pass_or_fail
