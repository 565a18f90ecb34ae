#!/bin/sh
# faultline leak on cxx-target, a C++ program leaking known blocks through
# each form of operator new (plain, [], nothrow, aligned, aligned nothrow)
# and freeing 600 more through each of the 12 forms of operator delete:
# under glibc + libstdc++ (whose operators call malloc and free: each block
# one allocation, not two) and under jemalloc, tcmalloc (minimal and full)
# and mimalloc preloaded with -O LIB, whose operators never call their
# malloc (before their probes, jemalloc showed none of the 100 `new Obj`).
# Per site: exactly the target's bytes and count; no freed (temp_*) site;
# no free counted as a free of an unknown block (jemalloc's and mimalloc's
# deletes jump to their free: one free, seen by two probes).
. "$top_srcdir/tests/system/lib.sh"
need_root
CT=$(target cxx-target)

# check OUT WHAT: the site lines of the truth in OUT against its stacks,
# summed by the first frame that is not the allocator's or libstdc++'s.
check() {
	python3 "$top_srcdir/tests/system/leak-check.py" sites "$1" "$1" 8 600 || fail "leak C++: $2"
}

# 1. glibc + libstdc++: the malloc family's probes see the operators'
# blocks, once each.
run_fl leak --json -T 1000 -c "$CT"
expect_eq "$rc" 0 "glibc: status"
check "$T/out" "glibc + libstdc++"

# 2. The other allocators, preloaded.
for lib in libjemalloc.so.2 libtcmalloc_minimal.so.4 libtcmalloc.so.4 libmimalloc.so.2; do
	path=$(preload_lib "$lib") || {
		fail "$lib not installed (scripts/install-deps installs it)"
		continue
	}
	run_fl leak --json -T 1000 -O "$path" -c "env LD_PRELOAD=$path $CT"
	expect_eq "$rc" 0 "$lib: status"
	check "$T/out" "$lib"
done

# 3. The BCC text of one of them: the 100 objects of 200 B, one stack.
if path=$(preload_lib libjemalloc.so.2); then
	run_fl leak -T 1000 -O "$path" -c "env LD_PRELOAD=$path $CT"
	expect_line '^	20000 bytes in 100 allocations from stack$' "$T/out"
	expect_line '^		0x[0-9a-f]{16}	leak_new\+0x[0-9a-f]+ \[cxx-target\]$' "$T/out"
fi

pass_or_fail
