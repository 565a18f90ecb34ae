#!/bin/sh
# Stacks through return probes: the default `faultline record` probes
# malloc's return, and the kernel's uretprobe replaces malloc's return
# address with its trampoline while the call runs; the page faults, brk and
# mmap calls made inside malloc must still unwind through malloc to main,
# exactly as a recording without the return probe (record -e faults, -e brk)
# unwinds them.  uret-target's 5 blocks of 1 MiB are 5 mmaps made inside
# malloc (its own account); perl is the program nobody here wrote.  Live,
# faults --by-alloc and leak probe malloc's return too: their sites are
# checked against live faults and brk alone, which probe nothing.
. "$top_srcdir/tests/system/lib.sh"
need_root
UT=$(target uret-target)

# rec ARGS...: faultline record ARGS, which must succeed and lose nothing:
# the runs' stacks are compared line for line, counts included.
rec() {
	run_fl record "$@"
	expect_eq "$rc" 0 "record $*: status"
	expect_line '^faultline record: [0-9,]+ samples \(0 lost\)' "$T/err"
}

# through_malloc FOLDED PROG: PROG's folded lines whose stack passes
# through malloc (not setarch's, which runs before it under the same pid).
through_malloc() {
	grep "^$2;" "$1" | grep -E ';(malloc|calloc|realloc)(;| )' | sort
}

# no_mapping REPORT: the footer's count of stacks ended in no mapping.
no_mapping() {
	sed -n -E 's/.*stacks:.* ([0-9]+) no-mapping.*/\1/p' "$1" | tail -n 1 | grep . || echo 0
}

# check_tool PROG_NAME TOOL DEFAULT_REC SINGLE_REC: the stacks of TOOL's
# events inside malloc, from the default recording and from one of TOOL
# alone, are the same lines, every one reaches main, and the default
# recording's footer has no more no-mapping stacks.
check_tool() {
	run_fl report -i "$3" "$2" --folded
	cp "$T/out" "$T/$1-$2-all.folded"
	run_fl report -i "$4" "$2" --folded
	cp "$T/out" "$T/$1-$2-one.folded"
	through_malloc "$T/$1-$2-all.folded" "$1" >"$T/a"
	through_malloc "$T/$1-$2-one.folded" "$1" >"$T/b"
	[ -s "$T/b" ] || fail "$1 $2: no stack through malloc in the single-tool recording"
	if grep -v ';main;' "$T/a" | grep -q .; then
		grep -v ';main;' "$T/a" | head -5
		fail "$1 $2: stacks through malloc stop before main in the default recording"
	fi
	if [ "$5" = exact ]; then
		cmp -s "$T/a" "$T/b" || {
			diff "$T/a" "$T/b" | head -20
			fail "$1 $2: the default recording's stacks through malloc differ from $2's alone"
		}
	fi
	run_fl report -i "$3" "$2"
	a=$(no_mapping "$T/out")
	run_fl report -i "$4" "$2"
	b=$(no_mapping "$T/out")
	[ "$a" -le "$b" ] || fail "$1 $2: $a no-mapping stacks in the default recording, $b in $2's alone"
}

# -- uret-target: every event inside malloc, exactly as without return probes.
# Its runs are compared line for line, so each runs at one address layout
# (setarch -R): with ASLR, whether the page that ptmalloc_init's getrandom
# writes is already mapped differs between runs (2 of 6 runs faulted there,
# none of 6 under -R, measured on 6.18), whatever faultline records.
rec -o "$T/u.rec" -- setarch -R "$UT"
expect_line "mmaps=5" "$T/out"
rec -o "$T/uf.rec" -e faults -- setarch -R "$UT"
rec -o "$T/ub.rec" -e brk -- setarch -R "$UT"
check_tool uret-target faults "$T/u.rec" "$T/uf.rec" exact
check_tool uret-target brk "$T/u.rec" "$T/ub.rec" exact

# The 1 MiB blocks: each one mmap from inside malloc, its stack through
# malloc and big_allocs to main.
run_fl report -i "$T/u.rec" mmap -g
n=$(awk '/^[0-9]/ { if (st != "") print st; st = ""; s = ($4 == "mmap" && $6 == 1052672); next }
	s && /^[ \t]/ { st = st $1 ";" }
	END { if (st != "") print st }' "$T/out" |
	grep -c 'malloc+0x[0-9a-f]*;big_allocs+0x[0-9a-f]*;main+' || :)
[ "$n" = 5 ] || {
	grep -A 8 ' 1052672 ' "$T/out" | head -20
	fail "uret-target mmap: $n of the 5 1 MiB blocks' mmaps unwind through malloc to main"
}

# -- Live.  faults --by-alloc probes malloc's return while malloc faults
# in _int_malloc and sysmalloc; each such fault waits for the call's return
# and goes to the block it returns, under that block's stack.  So per
# allocation site, its faults are exactly those live `faults` alone (no
# probes at all) unwinds through malloc to that site, and every site runs
# to main: uret-target's 984 faults under small_allocs and 7 under
# big_allocs (6.18, setarch -R), compared, not written down here.
run_fl faults --folded -c "setarch -R $UT"
expect_eq "$rc" 0 "live faults: status"
through_malloc "$T/out" uret-target >"$T/live-faults"
[ -s "$T/live-faults" ] || fail "live faults: no stack of uret-target through malloc"
if grep -v ';main;' "$T/live-faults" | grep -q .; then
	grep -v ';main;' "$T/live-faults" | head -5
	fail "live faults: stacks through malloc stop before main"
fi
# Each stack cut at the allocator call: the allocation site's stack.
sed -E 's/;(malloc|calloc|realloc)(;.*)? ([0-9]+)$/ \3/' "$T/live-faults" |
	awk '{ n[$1] += $2 } END { for (s in n) print s, n[s] }' | sort >"$T/live-sites"
run_fl faults -c "setarch -R $UT"
a_nomap=$(no_mapping "$T/out")
run_fl faults --by-alloc --folded -c "setarch -R $UT"
expect_eq "$rc" 0 "live faults --by-alloc: status"
grep '^uret-target;' "$T/out" | sort >"$T/by-alloc-sites"
cmp -s "$T/live-sites" "$T/by-alloc-sites" || {
	diff "$T/live-sites" "$T/by-alloc-sites" | head -20
	fail "live faults --by-alloc: its sites' faults differ from faults alone through malloc"
}
grep -q ';small_allocs [1-9]' "$T/by-alloc-sites" || fail "live faults --by-alloc: no small_allocs site"
run_fl faults --by-alloc -c "setarch -R $UT"
b_nomap=$(no_mapping "$T/out")
[ "$b_nomap" -le "$a_nomap" ] ||
	fail "live faults --by-alloc: $b_nomap no-mapping stacks, faults alone $a_nomap"

# leak takes no stack inside malloc: malloc's own sbrk and mmap calls,
# made while its return probe is pending, are its blocks' (leak has no
# option for brk stacks; the brk tool below has them, without return
# probes).  So live leak's stacks are the 4005 blocks' at malloc's
# return, all to main, with no region of the program's own and no stack
# cut short; and live brk alone unwinds the sbrk calls inside malloc
# through malloc to main.
run_fl leak --json -c "setarch -R $UT"
expect_eq "$rc" 0 "live leak: status"
expect_eq "$(leak_nums "$T/out" lost bytes blocks)" "0 9242880 4005" "live leak: lost, malloc family bytes and blocks"
python3 - "$T/out" <<'PY' || fail "live leak: uret-target's stacks"
import json, sys
st, summ, leak = [], None, None
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "stack":
            st.append(o)
        elif o["type"] == "summary":
            summ = o
        elif o["type"] == "leak_summary":
            leak = o
got = sorted(([f["sym"].split("+")[0] for f in o["stack"]][:2], o["allocations"], o["bytes"])
             for o in st if o["comm"] == "uret-target")
want = [(["big_allocs", "main"], 5, 5 << 20), (["small_allocs", "main"], 4000, 4000000)]
errs = []
if got != want:
    errs.append("stacks %s, want %s" % (got, want))
if leak["kinds"]["brk"]["allocations"] or leak["kinds"]["mmap"]["allocations"]:
    errs.append("regions of the program's own: %s" % leak["kinds"])
u = summ["unwind"]
if u["complete"] != sum(u.values()):
    errs.append("stacks not complete: %s" % u)
if errs:
    sys.exit("; ".join(errs))
PY
run_fl brk --folded -c "setarch -R $UT"
expect_eq "$rc" 0 "live brk: status"
through_malloc "$T/out" uret-target >"$T/live-brk"
grep -q ';small_allocs;malloc;' "$T/live-brk" || fail "live brk: no sbrk inside small_allocs' mallocs"
if grep -v ';main;' "$T/live-brk" | grep -q .; then
	grep -v ';main;' "$T/live-brk" | head -5
	fail "live brk: stacks through malloc stop before main"
fi

# -- perl: its faults and brk calls inside malloc reach main, with no more
# no-mapping stacks than without return probes.  Two runs of perl differ
# by a fault or two, so the lines are compared for reaching main, not equal.
if command -v perl >/dev/null 2>&1; then
	rec -o "$T/p.rec" -- perl -e 'my %h; $h{$_}=[1..5] for 1..20000'
	rec -o "$T/pf.rec" -e faults -- perl -e 'my %h; $h{$_}=[1..5] for 1..20000'
	rec -o "$T/pb.rec" -e brk -- perl -e 'my %h; $h{$_}=[1..5] for 1..20000'
	check_tool perl faults "$T/p.rec" "$T/pf.rec"
	check_tool perl brk "$T/p.rec" "$T/pb.rec"
	# the fault count under malloc agrees within the runs' own noise
	a=$(through_malloc "$T/perl-faults-all.folded" perl | awk '{ n += $NF } END { print n + 0 }')
	b=$(through_malloc "$T/perl-faults-one.folded" perl | awk '{ n += $NF } END { print n + 0 }')
	within "$a" "$b" 2 || fail "perl faults: $a faults through malloc in the default recording, $b alone"
else
	echo "perl not installed: its part skipped"
fi

pass_or_fail
