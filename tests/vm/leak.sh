#!/bin/sh
# leak.sh (guest): `faultline leak -c` on leak-target (every site's bytes
# and allocations exact, as the target prints them: site fn=F bytes=B
# count=C), and `leak -k` on 6.1's kmem tracepoints against kleak-target:
# 100 pipes make two kmallocs each in alloc_pipe_info while open (two
# stacks of exactly 100), none once they are closed.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
LT=$(target leak-target)
KT=$(target kleak-target)

run_fl leak -T 100 -c "$LT leaks"
expect_eq "$rc" 0 "leak -c status"
expect_line "^Executing '.*leak-target leaks' and tracing allocations with uprobes\+uretprobes on the allocator, syscall tracepoints" "$T/err"
check_sites "dwarf"
expect_line '^  failed calls: +1$' "$T/out"
run_fl leak -T 100 --call-graph fp -c "$LT leaks"
expect_eq "$rc" 0 "leak -c fp status"
check_sites "fp"
# -s 64: 6.1's uprobes read the chunk header and filter in the kernel.
leak_sample kernel

# Kernel mode: reports every second while the pipes are held open (4 s),
# and at the end, after they were closed.
run_fl leak -k --json -o 0 -T 1000 -c "$KT 100 --hold-ms 4000" 1
expect_eq "$rc" 0 "leak -k status"
expect_line 'tracing kernel allocations with tracepoints kmem:kmalloc/kmem_cache_alloc/mm_page_alloc and frees' "$T/err"
# Per report (ended by its summary line): the allocations of the stacks
# whose second frame is alloc_pipe_info.
awk '/"type":"stack"/ && /"stack":\[\{[^}]*\},\{"addr":"[^"]*","sym":"alloc_pipe_info\+/ {
		a = $0; sub(/.*"allocations":/, "", a); sub(/,.*/, "", a); cur = cur " " a; next }
     /"type":"summary"/ { print "report" (cur == "" ? " none" : cur); cur = "" }
     /^closed=/ { print "closed" }' "$T/out" >"$T/reports"
cat "$T/reports"
grep -q '^report 100 100$' "$T/reports" && echo "ok: leak -k: two alloc_pipe_info stacks of 100 while the pipes are open" ||
	fail "leak -k: no report with two alloc_pipe_info stacks of 100"
expect_eq "$(tail -n 1 "$T/reports")" "report none" "leak -k: alloc_pipe_info stacks in the last report, after close"
echo "RESULT leak -k: $(grep -m1 '^report 100 100$' "$T/reports") while open, $(tail -n 1 "$T/reports") after close"
pass_or_fail
