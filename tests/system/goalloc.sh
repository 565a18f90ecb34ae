#!/bin/sh
# faultline goalloc on go-target, a Go program built here with Debian's
# golang-go, whose sites allocate known sizes: main.sliceSite 1000 x
# make([]byte, 4096) (makeslice), main.objectSite 500 x new(48-byte obj)
# (newobject).  The stacks whose frames are mallocgc, the runtime entry
# (makeslice or newobject) and the site must hold exactly the target's
# bytes and counts, with -c (3 runs) and with -p; text and --folded forms;
# a program that is not Go is one clear line.  One entry uprobe, no return
# probe; frame-pointer stacks.
# --pprof (with -c and with -p): the profile, decoded by pprof-check.py,
# has Go's alloc_objects and alloc_space, every sample labelled with the
# target's pid and comm and a tid; the sites' samples all carry the tid of
# the thread the target ran them on (locked to it, not the main thread:
# the target prints it), and their values are the sites' counts and bytes;
# its totals are goalloc --json's; go tool pprof -tags lists the labels
# with the sums decoded; -tagfocus=tid=THAT keeps both sites, the main
# thread's tid neither, -tagfocus=comm=go-target every sample.
# --pprof - (standard output is the report's): a usage error.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v go >/dev/null 2>&1 || skip "no Go toolchain (Debian's golang-go; scripts/install-deps installs it)"
[ "$(uname -m)" = x86_64 ] || skip "goalloc reads mallocgc's size from RAX: amd64 only, this is $(uname -m)"
GT=$T/go-target
GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS= GO111MODULE=off \
	go build -o "$GT" "$top_srcdir/tests/targets/go-target.go" >"$T/go.err" 2>&1 ||
	fail "go build go-target: $(head -n 3 "$T/go.err")"
[ -x "$GT" ] || { pass_or_fail; exit 1; }

# check TRUTH JSON WHAT
check() {
	python3 - "$1" "$2" <<'PY' || fail "goalloc: $3"
import json, re, sys
want = {}
for l in open(sys.argv[1]):
    m = re.match(r"site fn=([\w.]+) bytes=(\d+) count=(\d+)$", l.strip())
    if m:
        want[m.group(1)] = (int(m.group(2)), int(m.group(3)))
got, summary, lost = {}, None, None
for l in open(sys.argv[2]):
    if not l.startswith("{"):
        continue
    o = json.loads(l)
    if o["type"] == "stack":
        n = [f["sym"].split("+")[0] for f in o["stack"]]
        if len(n) > 2 and n[0] == "runtime.mallocgc" and \
           n[1] in ("runtime.makeslice", "runtime.newobject") and n[2] in want:
            b, c = got.get(n[2], (0, 0))
            got[n[2]] = (b + o["bytes"], c + o["allocations"])
    elif o["type"] == "goalloc_summary":
        summary = o
    elif o["type"] == "summary":
        lost = o["lost"]
errs = []
if len(want) != 2:
    errs.append("%d site lines in the truth" % len(want))
if got != want:
    errs.append("sites %s, want %s" % (sorted(got.items()), sorted(want.items())))
if not summary or summary["bytes"] < sum(b for b, _ in want.values()):
    errs.append("summary %s" % summary)
if lost != 0:
    errs.append("lost %s" % lost)
if errs:
    sys.exit("; ".join(errs))
PY
}

# 1. -c, three runs.
for i in 1 2 3; do
	run_fl goalloc --json -T 100000 -c "$GT"
	expect_eq "$rc" 0 "-c run $i: status"
	check "$T/out" "$T/out" "-c run $i"
done
expect_line "^Executing '.*go-target' and tracing Go allocations with uprobe on runtime.mallocgc's entry, frame-pointer stacks\.$" "$T/err"

# pprofcheck TRUTH JSON PROFILE WHAT: pprof-check.py goalloc.
pprofcheck() {
	python3 "$top_srcdir/tests/system/pprof-check.py" goalloc "$3" "$1" "$2" \
		>"$T/pcheck.out" 2>"$T/pcheck.err" ||
		fail "goalloc --pprof, $4: $(tr '\n' ';' <"$T/pcheck.err")"
}

# 1b. -c with --pprof: the profile decoded, then as go tool pprof reads it.
run_fl goalloc --json -T 100000 --pprof "$T/g.pb.gz" -c "$GT"
if grep -q 'built without pprof output' "$T/err"; then
	fail "goalloc --pprof: $(cat "$T/err")"
else
	expect_eq "$rc" 0 "--pprof: status"
	check "$T/out" "$T/out" "--pprof run"
	pprofcheck "$T/out" "$T/out" "$T/g.pb.gz" "-c"
	gtid=$(sed -n 's/^tid=//p' "$T/out")
	GOCACHE=$T/gocache HOME=$T go tool pprof -tags -unit=B "$T/g.pb.gz" >"$T/g.tags" 2>"$T/g.tags.err" ||
		fail "go tool pprof -tags: $(cat "$T/g.tags.err")"
	python3 "$top_srcdir/tests/system/pprof-check.py" tags "$T/g.pb.gz" "$T/g.tags" \
		>"$T/pcheck.out" 2>"$T/pcheck.err" || fail "go tool pprof -tags: $(cat "$T/pcheck.err")"
	expect_line "^ +[0-9.]+B \( *[0-9.]+%\): ${gtid}B\$" "$T/g.tags"
	expect_line '^ +[0-9.]+B \( *100%\): go-target$' "$T/g.tags"
	# gtop NAME ARGS...: go tool pprof -top ARGS into $T/NAME.top.
	gtop() {
		n=$1
		shift
		GOCACHE=$T/gocache HOME=$T go tool pprof -top -unit=B -nodefraction=0 -nodecount=1000 \
			"$@" "$T/g.pb.gz" >"$T/$n.top" 2>"$T/$n.top.err" ||
			fail "go tool pprof -top $*: $(cat "$T/$n.top.err")"
	}
	gtop thread -tagfocus="tid=$gtid"
	expect_line ' main\.sliceSite$' "$T/thread.top"
	expect_line ' main\.objectSite$' "$T/thread.top"
	gtop main -tagfocus="tid=$(sed -n 's/^pid=//p' "$T/out")"
	expect_no_line ' main\.(slice|object)Site$' "$T/main.top"
	gtop all
	gtop comm -tagfocus=comm=go-target
	expect_eq "$(grep 'Total samples' "$T/comm.top")" "$(grep 'Total samples' "$T/all.top")" \
		"-tagfocus=comm=go-target: every sample"
fi

# 2. -p, attached while the target waits on its FIFO.
go_fifo go
spawn_at_fifo gt "$GT" --go "$fifo"
gtpid=$spawned
spawn fl "$FAULTLINE" goalloc --json -T 100000 --pprof "$T/gp.pb.gz" -p "$gtpid"
fl=$spawned
wait_ready "$T/fl.err" "goalloc -p" && release "$fifo"
wait_exit "$gtpid" "go-target -p"
expect_eq "$rc" 0 "go-target -p: status"
wait_exit "$fl" "goalloc -p"
expect_eq "$rc" 0 "goalloc -p: status"
check "$T/gt.out" "$T/fl.out" "-p"
expect_eq "$(sed -n 's/^pid=//p' "$T/gt.out")" "$gtpid" "-p: the target's own pid"
pprofcheck "$T/gt.out" "$T/fl.out" "$T/gp.pb.gz" "-p"

# 3. Text (memleak's entry lines) and folded.
run_fl goalloc -T 100000 -c "$GT"
expect_line '^	4096000 bytes in 1000 allocations from stack$' "$T/out"
expect_line '^		0x[0-9a-f]{16}	main\.sliceSite\+0x[0-9a-f]+ \[go-target\]$' "$T/out"
expect_line '^[0-9,]+ B( \([0-9]+\.[0-9]{2} [KMGTPE]iB\))? in [0-9,]+ allocations in all, [0-9,]+ stacks' "$T/out"
run_fl goalloc --folded -T 100000 -c "$GT"
expect_line '^go-target;.*main\.sliceSite;runtime\.makeslice;runtime\.mallocgc 4096000$' "$T/out"

# 4. Not a Go program; no target; -a.
run_fl goalloc -c /bin/true
expect_eq "$rc" 125 "not Go: status (faultline failed, a command given)"
expect_line "^faultline goalloc: '/.*true' has no runtime.mallocgc: not a Go program, or stripped of its symbol table$" "$T/err"
run_fl goalloc
expect_eq "$rc" 2 "no target: status"
run_fl goalloc -a
expect_eq "$rc" 2 "-a: status"
run_fl goalloc --pprof - -c "$GT"
expect_eq "$rc" 2 "--pprof -: status"
expect_line "^faultline goalloc: --pprof wants a file \(standard output is the report's\), not '-'" "$T/err"
expect_eq "$(wc -l <"$T/err")" 1 "--pprof -: lines on stderr"

pass_or_fail
