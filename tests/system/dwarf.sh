#!/bin/sh
# DWARF unwinding (--call-graph dwarf, both --unwinder backends) against
# deep-target, built -O2 without frame pointers, whose mmap and brk calls
# end a known chain through the executable, libdeep.so and libc's qsort:
# both unwinders must find exactly that chain down to main, and agree
# frame for frame; fp must lose part of it; the default is dwarf; a
# stripped executable is named through its .gnu_debuglink file, a deleted
# one through /proc/PID/map_files; the footer counts why each walk ended.
. "$top_srcdir/tests/system/lib.sh"
need_root
DT=$(target deep-target)
DS=$(target deep-target-stripped)
if [ ! -x "$DT" ] || [ ! -x "$DS" ]; then
	fail "deep-target or deep-target-stripped not built"
	pass_or_fail
fi

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# Runs to compare address for address are made with ASLR off: setarch's
# personality flag is inherited by the command faultline starts.
FL_REAL=$FAULTLINE
if setarch "$(uname -m)" -R true 2>/dev/null; then
	printf '#!/bin/sh\nexec setarch "%s" -R "%s" "$@"\n' "$(uname -m)" "$FL_REAL" >"$T/fl-norand"
	chmod +x "$T/fl-norand"
	norand=1
else
	echo "note: setarch -R unavailable: stacks are compared by symbol+offset only"
	norand=0
fi
run_norand() {
	[ "$norand" = 1 ] && FAULTLINE=$T/fl-norand
	run_fl "$@"
	FAULTLINE=$FL_REAL
}

# check_chain OUTFILE KIND SAVEFILE: the stack of the target's ground-truth
# call (KIND mmap: the mmap record at mmap_addr; KIND brk: the stack object
# holding deep_do_sbrk, which must have count 1 and requested exactly
# sbrk_ret + sbrk_len) reads: libc's syscall wrapper frame(s), then the
# target's chain (chain= or sbrk_chain=; "[libc]" matches one or more libc
# frames), then nothing, or libc's start frames and _start.  Writes the
# stack as "addr sym" lines to SAVEFILE and describes it on stdout.
check_chain() {
	python3 - "$@" <<'PY' || fail "$2 chain in ${1#"$T"/}"
import json, re, sys
path, kind, save = sys.argv[1:4]
truth, objs = {}, []
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("{"):
        objs.append(json.loads(line))
    elif "=" in line and not line.startswith(" "):
        k, v = line.split("=", 1)
        truth.setdefault(k, v)
for k in ("chain", "sbrk_chain", "mmap_addr", "mmap_len", "sbrk_ret", "sbrk_len", "pid"):
    if k not in truth:
        sys.exit("no %s= in the target's ground truth" % k)
pid = int(truth["pid"])
if kind == "mmap":
    want = truth["chain"].split(",")
    addr = int(truth["mmap_addr"], 16)
    m = [o for o in objs if o["type"] == "mmap" and o["pid"] == pid
         and int(o["addr"], 16) == addr and o["len"] == int(truth["mmap_len"])]
    if len(m) != 1:
        sys.exit("%d mmap records at %#x of pid %d, want 1" % (len(m), addr, pid))
else:
    want = truth["sbrk_chain"].split(",")
    m = [o for o in objs if o["type"] == "stack" and o["pid"] == pid
         and any(f["sym"].split("+")[0] == want[0] for f in o["stack"])]
    if len(m) != 1:
        sys.exit("%d stacks of pid %d hold %s, want 1" % (len(m), pid, want[0]))
    req = int(truth["sbrk_ret"], 16) + int(truth["sbrk_len"])
    if m[0]["count"] != 1:
        sys.exit("the %s stack has count %d, want 1" % (want[0], m[0]["count"]))
    if (int(m[0]["requested_min"], 16), int(m[0]["requested_max"], 16)) != (req, req):
        sys.exit("the %s stack requested %s..%s, want %#x" %
                 (want[0], m[0]["requested_min"], m[0]["requested_max"], req))
stack = m[0]["stack"]
with open(save, "w") as f:
    for fr in stack:
        f.write("%s %s\n" % (fr["addr"], fr["sym"]))
print("%s stack, %d frames:" % (kind, len(stack)))
for fr in stack:
    print("  %s %s" % (fr["addr"], fr["sym"]))

def name(fr):
    return fr["sym"].split("+")[0].split(" ")[0]
def module(fr):
    mo = re.search(r" \[(.+)\]$", fr["sym"])
    return mo.group(1) if mo else None
def in_libc(fr):
    return re.match(r"libc[.-]", module(fr) or "") is not None

errs = []
i, n = 0, len(stack)
# libc's wrapper: mmap; or brk called by sbrk.
while i < n and in_libc(stack[i]):
    i += 1
if i == 0:
    sys.exit("innermost frame %r is not libc's wrapper" % (stack[0]["sym"] if stack else None))
inner, outer = name(stack[0]), name(stack[i - 1])
if kind == "mmap" and "mmap" not in inner:
    errs.append("innermost frame %s is not libc's mmap" % inner)
if kind == "brk" and ("brk" not in inner or "sbrk" not in outer):
    errs.append("wrapper frames %s..%s are not libc's brk..sbrk" % (inner, outer))
for w in want:
    if i >= n:
        sys.exit("; ".join(errs + ["stack ends before %s" % w]))
    if w == "[libc]":
        j = i
        while j < n and in_libc(stack[j]):
            j += 1
        if j == i:
            errs.append("frame %d: %s where libc's qsort frames belong" % (i, stack[i]["sym"]))
        i = j
    elif name(stack[i]) != w:
        sys.exit("; ".join(errs + ["frame %d: %s, want %s" % (i, stack[i]["sym"], w)]))
    else:
        i += 1
# After main: at most libc's two start frames (named, or unnamed when libc
# has no symbol table), then _start of the executable, or nothing.
tail = stack[i:]
libc_tail = 0
while libc_tail < len(tail) and in_libc(tail[libc_tail]):
    nm = name(tail[libc_tail])
    if nm not in ("__libc_start_call_main", "[unknown]") and not nm.startswith("__libc_start_main"):
        errs.append("after main: %s is not a libc start frame" % tail[libc_tail]["sym"])
    libc_tail += 1
if libc_tail > 2:
    errs.append("after main: %d libc frames, want at most 2" % libc_tail)
rest = tail[libc_tail:]
if rest and (len(rest) != 1 or name(rest[0]) != "_start"):
    errs.append("after main: %s" % [f["sym"] for f in rest])
if errs:
    sys.exit("\n".join(errs))
PY
}

# same_stack A B WHAT: two saved stacks are the same frames (symbol+offset
# and module), and, with ASLR off, at the same addresses.
same_stack() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then
		fail "$3: no stack to compare (${1#"$T"/} or ${2#"$T"/} missing)"
		return 0
	fi
	cut -d' ' -f2- "$1" >"$1.syms"
	cut -d' ' -f2- "$2" >"$2.syms"
	if ! cmp -s "$1.syms" "$2.syms"; then
		fail "$3: the stacks differ:"
		diff "$1" "$2" | sed 's/^/  /'
	elif [ "$norand" = 1 ] && ! cmp -s "$1" "$2"; then
		fail "$3: same frames at different addresses:"
		diff "$1" "$2" | sed 's/^/  /'
	fi
	return 0
}

# footer OUTFILE: the JSON summary's call_graph and unwind counters, as
# "call_graph complete max-depth stack-copy-end no-cfi no-mapping
# no-registers error"; status 1, and what is wrong on stdout, when there
# is no single summary line or an unwind key is missing or extra.
footer() {
	python3 - "$1" <<'PY'
import json, sys
keys = ["complete", "max_depth", "stack_copy_end", "no_cfi", "no_mapping", "no_registers", "error"]
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')]
if len(s) != 1:
    print("%d summary lines" % len(s))
    sys.exit(1)
u = s[0].get("unwind")
if u is None and s[0].get("call_graph") != "dwarf":
    print(s[0].get("call_graph"), "- - - - - - -")
    sys.exit(0)
if u is None or sorted(u) != sorted(keys):
    print("unwind counters %r, want the keys %s" % (u, keys))
    sys.exit(1)
print(s[0].get("call_graph"), " ".join(str(u[k]) for k in keys))
PY
}

# records OUTFILE PID: the number of mmap and munmap records of PID.
records() {
	python3 - "$@" <<'PY'
import json, sys
pid = int(sys.argv[2])
print(sum(1 for l in open(sys.argv[1]) if l.startswith("{")
          for o in [json.loads(l)] if o["type"] in ("mmap", "munmap") and o["pid"] == pid))
PY
}

# 1. Each unwinder: mmap and brk stacks, the whole chain.
for u in libdw libunwind; do
	run_norand mmap --json -g --call-graph dwarf --unwinder=$u -c "$DT"
	expect_eq "$rc" 0 "mmap $u status"
	check_chain "$T/out" mmap "$T/mmap.$u"
	truth mmap_addr "$T/out" >"$T/addr.$u"
	# Every walk is counted once, for a reason (here: each mmap and
	# munmap call of the process; -c traces nothing else).
	if f=$(footer "$T/out"); then
		echo "footer ($u): $f"
		# shellcheck disable=SC2086 # eight words, split on purpose
		set -- $f
		expect_eq "$1" dwarf "mmap $u call_graph"
		shift
		expect_eq "$(($1 + $2 + $3 + $4 + $5 + $6 + $7))" \
			"$(records "$T/out" "$(truth pid "$T/out")")" \
			"mmap $u: walks counted vs mmap/munmap records"
		# Every walk completes, the loader's early ones too: they end in
		# ld.so's _start, which has no CFI but is the first frame.
		expect_eq "$(($2 + $3 + $4 + $5 + $6 + $7))" 0 "mmap $u: walks that did not complete"
	else
		fail "mmap $u footer: $f"
	fi

	run_norand brk --json --call-graph dwarf --unwinder=$u -c "$DT"
	expect_eq "$rc" 0 "brk $u status"
	check_chain "$T/out" brk "$T/brk.$u"
done

# 2. The two unwinders agree, frame for frame.
same_stack "$T/mmap.libdw" "$T/mmap.libunwind" "mmap: libdw vs libunwind"
same_stack "$T/brk.libdw" "$T/brk.libunwind" "brk: libdw vs libunwind"
if [ "$norand" = 1 ]; then
	expect_eq "$(cat "$T/addr.libunwind")" "$(cat "$T/addr.libdw")" "mmap_addr of two runs with ASLR off"
fi

# 3. Frame pointers: the kernel's walk, through code built without them,
#    loses frames (how many depends on what %rbp happens to hold); it must
#    start at libc's wrapper and be strictly shorter than the DWARF stack.
run_fl mmap --json -g --call-graph fp -c "$DT"
expect_eq "$rc" 0 "mmap fp status"
python3 - "$T/out" "$T/mmap.libdw" <<'PY' || fail "fp stack"
import json, sys
truth = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]) if "=" in l and not l.startswith("{"))
try:
    dwarf = [l.split(" ", 1)[1].strip() for l in open(sys.argv[2])]
except OSError:
    dwarf = None
pid, addr = int(truth["pid"]), int(truth["mmap_addr"], 16)
m = [o for l in open(sys.argv[1]) if l.startswith("{") for o in [json.loads(l)]
     if o["type"] == "mmap" and o["pid"] == pid and int(o["addr"], 16) == addr]
if len(m) != 1:
    sys.exit("%d fp mmap records at %#x, want 1" % (len(m), addr))
st = m[0]["stack"]
names = [f["sym"].split("+")[0].split(" ")[0] for f in st]
chain = [c for c in truth["chain"].split(",") if c != "[libc]"]
if not dwarf:
    sys.exit("no libdw stack to compare the fp stack with")
print("fp: %d frames (dwarf: %d): %s" % (len(st), len(dwarf), [f["sym"] for f in st]))
print("fp: chain frames missing: %s" % [c for c in chain if c not in names])
errs = []
if not st or "mmap" not in names[0] or not st[0]["sym"].endswith(" [libc.so.6]"):
    errs.append("innermost fp frame %s, want libc's mmap" % (st[0]["sym"] if st else None))
if len(st) >= len(dwarf):
    errs.append("fp stack has %d frames, the dwarf one %d: fp should lose frames" % (len(st), len(dwarf)))
if errs:
    sys.exit("\n".join(errs))
PY
f=$(footer "$T/out") || fail "fp footer: $f"
expect_eq "${f%% *}" fp "fp call_graph"

# 4. The default for user stacks is dwarf with libdw; the target exiting
#    right after its work changes nothing.
run_norand mmap --json -g -c "$DT --exit-early"
expect_eq "$rc" 0 "mmap default status"
check_chain "$T/out" mmap "$T/mmap.default"
same_stack "$T/mmap.libdw" "$T/mmap.default" "mmap: default vs --call-graph dwarf --unwinder=libdw"
f=$(footer "$T/out") || fail "default footer: $f"
expect_eq "${f%% *}" dwarf "default call_graph"

# 5. Stripped executable: its frames are named from deep-target.debug,
#    found through .gnu_debuglink.  Stripping keeps the code where it was.
run_norand mmap --json -g --call-graph dwarf -c "$DS"
expect_eq "$rc" 0 "mmap stripped status"
check_chain "$T/out" mmap "$T/mmap.stripped"
if [ "$norand" = 1 ]; then
	cut -d' ' -f1 "$T/mmap.libdw" >"$T/ips.libdw"
	cut -d' ' -f1 "$T/mmap.stripped" >"$T/ips.stripped"
	cmp -s "$T/ips.libdw" "$T/ips.stripped" ||
		fail "stripped: addresses differ from the unstripped run's"
fi

# trace_p NAME PID GO END ARGS...: faultline ARGS -p PID in the
# background, output in $T/NAME.out and .err, status in $rc.  PID waits on
# the FIFO GO (--go), released once faultline says it is tracing; its
# ground truth must not be out before.  END "-": the target exits after
# its work and faultline -p ends with it.  Else the target holds on the
# FIFO END (--end) after its work: faultline is stopped with SIGINT once
# the truth is out, while the target still lives, and END is released.
trace_p() {
	local name=$1 tpid=$2 go=$3 end=$4 fl
	shift 4
	echo "+ faultline $* -p $tpid"
	spawn "$name" "$FL_REAL" "$@" -p "$tpid"
	fl=$spawned
	if wait_ready "$T/$name.err" "$name"; then
		[ -s "$T/target.$name.out" ] && fail "$name: the target did its work before its --go"
		release "$go"
	fi
	if [ "$end" != - ]; then
		wait_until "$FL_TIMEOUT" grep -q '^pid=' "$T/target.$name.out" ||
			fail "$name: the target did not finish its work"
		kill -INT "$fl"
	fi
	wait_exit "$fl" "$name"
	if [ "$end" != - ]; then
		expect_stopped INT "$1" "$T/$name.err" "$name: faultline -p"
	else
		expect_eq "$rc" 0 "$name: faultline -p status"
	fi
	if [ "$end" != - ]; then
		release "$end"
		wait_exit "$tpid" "$name: target"
		expect_eq "$rc" 0 "$name: target status"
	fi
	cat "$T/target.$name.out" >>"$T/$name.out"
}

# 6. Deleted executable: a copy, started from a temp dir beside a copy of
#    libdeep.so ($ORIGIN), is deleted while it waits; its file is reached
#    through /proc/PID/map_files, both to unwind and to name its frames.
#    6a: the target stays alive (--end FIFO) while faultline unwinds and
#    prints the call; 6b: it exits right after the call (--exit-early), so
#    the file must have been opened while the process lived (faultline
#    keeps a descriptor of deleted executables when it reads the maps).
# deleted NAME held|gone
deleted() {
	local name=$1 tpid go end=- opt=--exit-early
	mkdir "$T/$name.dir"
	cp "$DT" "$T/$name.dir/deep-target"
	cp "$(target libdeep.so)" "$T/$name.dir/libdeep.so"
	go_fifo "$name.go"
	go=$fifo
	if [ "$2" = held ]; then
		go_fifo "$name.end"
		end=$fifo
		opt="--end $end"
	fi
	spawn_at_fifo "target.$name" "$T/$name.dir/deep-target" --go "$go" $opt
	tpid=$spawned
	rm "$T/$name.dir/deep-target"
	[ -e "$T/$name.dir/deep-target" ] && fail "$name: cannot delete the copy"
	trace_p "$name" "$tpid" "$go" "$end" mmap --json -g --call-graph dwarf
	check_chain "$T/$name.out" mmap "$T/mmap.$name"
	rm -rf "$T/$name.dir"
}
deleted deleted-held held
deleted deleted-gone gone

# 7. Footer: with -p and the target's only mmap after attaching, there is
#    one walk and it is complete (ended at the outermost frame).  The
#    target exits right after its work (--exit-early), before the report.
go_fifo alive.go
spawn_at_fifo target.alive "$DT" --go "$fifo" --exit-early
trace_p alive "$spawned" "$fifo" - mmap --json -g --call-graph dwarf
check_chain "$T/alive.out" mmap "$T/mmap.alive"
expect_eq "$(records "$T/alive.out" "$(truth pid "$T/alive.out")")" 1 "-p: mmap/munmap records after attaching"
f=$(footer "$T/alive.out") || fail "-p footer: $f"
expect_eq "$f" "dwarf 1 0 0 0 0 0 0" "-p footer: call_graph and walks complete max-depth stack-copy-end no-cfi no-mapping no-registers error"

# 8. A container's binaries: the target runs chrooted in a tree of copies
#    (its own deep-target, libdeep.so, libc and loader), so the paths in its
#    maps name files that on the host are absent or other inodes; they are
#    reached through /proc/PID/root, to unwind and to name the frames.
if command -v chroot >/dev/null 2>&1; then
	R=$T/rootfs
	mkdir -p "$R/app"
	cp "$DT" "$R/app/deep-target"
	cp "$(target libdeep.so)" "$R/app/libdeep.so"
	for lib in $(ldd "$DT" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		case $lib in */libdeep.so) continue ;; esac
		mkdir -p "$R$(dirname "$lib")"
		cp "$lib" "$R$lib"
	done
	# The FIFOs in the tree, where the chrooted target finds them.
	mkfifo "$R/go.fifo" "$R/end.fifo"
	# No /proc in the chroot, so ld.so cannot expand $ORIGIN: name the dir.
	spawn_at_fifo target.container env LD_LIBRARY_PATH=/app chroot "$R" /app/deep-target \
		--go /go.fifo --end /end.fifo
	# (spawn_at_fifo: attached to deep-target, not to the env and chroot
	# it is exec'd from.)
	trace_p container "$spawned" "$R/go.fifo" "$R/end.fifo" mmap --json -g --call-graph dwarf
	check_chain "$T/container.out" mmap "$T/mmap.container"
fi
pass_or_fail
