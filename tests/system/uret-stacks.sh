#!/bin/sh
# Stacks through return probes: the default `faultline record` probes
# malloc's return, and the kernel's uretprobe replaces malloc's return
# address with its trampoline while the call runs; the page faults, brk and
# mmap calls made inside malloc must still unwind through malloc to main,
# exactly as a recording without the return probe (record -e faults, -e brk)
# unwinds them.  uret-target's 5 blocks of 1 MiB are 5 mmaps made inside
# malloc (its own account); perl is the program nobody here wrote.
. "$top_srcdir/tests/system/lib.sh"
need_root
UT=$(target uret-target)

# rec ARGS...: faultline record ARGS, which must succeed and lose nothing:
# the runs' stacks are compared line for line, counts included.
rec() {
	run_fl record "$@"
	expect_eq "$rc" 0 "record $*: status"
	expect_line '^faultline record: [0-9]+ samples \(0 lost\)' "$T/err"
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
