#!/bin/sh
# faultline leak finds the allocator where the program has it, without -O,
# in the cases alloc-where-tools.sh (every tool, exact, on static glibc,
# static musl, jemalloc and tcmalloc linked in, jemalloc preloaded under
# -p, a library dlopen'ed) leaves to it: a dynamic musl program (musl's
# dynamic linker is its libc: "libc.so" in DT_NEEDED) and jemalloc
# preloaded into a command (-c); and it says in one line, exit 1, that a
# program without malloc has nothing to probe.
#
# alloc-where prints its own "outstanding BYTES COUNT" (the blocks it
# keeps).  Under dynamic musl leak's malloc-family total must be exactly
# that; under jemalloc preloaded with -c, libstdc++ is loaded and its
# emergency pool (a 72704 B malloc in its constructor, before main) is the
# process's block too, so there the blocks whose stack runs through main
# must be exactly the target's, and every other one must come from before
# main (leak-check.py main).  The allocator's own mmap regions are not
# blocks.  The first stderr line names the functions and the object
# probed, and the kind of allocator (alloc-where-lib.sh: aw_probing).
. "$top_srcdir/tests/system/lib.sh"
need_root
. "$top_srcdir/tests/system/alloc-where-lib.sh"
AW=$(target alloc-where)
NM=$(target no-malloc)

# check NAME: leak's --json output in $T/out against the target's own
# line (in it too: the target shares stdout).
check() {
	expect_eq "$rc" 0 "$1: status"
	python3 "$top_srcdir/tests/system/leak-check.py" main "$T/out" ||
		fail "$1: leak's blocks against the target's account"
	return 0
}

# 1. Dynamic musl: its dynamic linker is its libc.
if aw_build musl-dyn; then
	run_fl leak --json -T 1000 -c "$T/aw-musl-dyn"
	check "dynamic musl"
	aw_probing leak "malloc, calloc, realloc, aligned_alloc, memalign, free" \
		"$(ls /lib/ld-musl-x86_64.so.1 /usr/lib/ld-musl-x86_64.so.1 2>/dev/null | head -n 1)" \
		musl "$T/err"
	expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "dynamic musl: totals"
fi

# 2. jemalloc preloaded into a glibc command: what its malloc calls reach,
# not libc's.  -c inherits faultline's LD_PRELOAD.
if path=$(preload_lib libjemalloc.so.2); then
	if [ "${FL_SANITIZED:-0}" = 1 ]; then
		# faultline inherits the preload too, and ASan's runtime must come
		# first in its library list: the normal build runs this case.
		echo "sanitizer build: preloaded jemalloc (-c) left to the normal build"
	else
		echo "+ LD_PRELOAD=$path"
		LD_PRELOAD=$path run_fl leak --json -T 1000 -c "$AW"
		check "preloaded jemalloc (-c)"
		aw_probing leak "malloc, calloc, realloc, aligned_alloc, memalign, valloc, mallocx, rallocx, free, dallocx, sdallocx, new, delete" \
			"$path" "jemalloc, preloaded" "$T/err"
	fi
else
	fail "libjemalloc.so.2 not installed (scripts/install-deps)"
fi

# 3. No allocator: one line, exit 1, for -c and for -p.
run_fl leak -c "$NM"
expect_eq "$rc" 125 "no allocator (-c): status (faultline failed, a command given)"
expect_eq "$(wc -l <"$T/err")" 1 "no allocator (-c): stderr lines"
expect_line "^faultline leak: no allocator to probe: '.*no-malloc' is a static executable without malloc" "$T/err"
expect_eq "$(wc -c <"$T/out")" 0 "no allocator (-c): stdout bytes"
spawn nm "$NM" wait
nm=$spawned
run_fl leak -p "$nm"
expect_eq "$rc" 1 "no allocator (-p): status"
expect_eq "$(wc -l <"$T/err")" 1 "no allocator (-p): stderr lines"
expect_line "^faultline leak: no allocator to probe: none of the [0-9]+ files process $nm maps defines malloc" "$T/err"
kill "$nm"

# After every run: none of their probes is left in tracefs.
assert_no_stale_probes
pass_or_fail
