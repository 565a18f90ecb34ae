#!/bin/sh
# faultline record + faultline report: one recording of a target, then
# each tool's report from it equals the live tool's on the same target
# (leak, faults by stack and by allocation, ffaults, brk, mmap), with the
# options applied after the fact (--sort, -T, --since/--until); script
# dumps the samples as perf script does (parsed here by the rules of
# FlameGraph's stackcollapse-perf.pl); a recording whose binaries moved
# still symbolizes with --symfs; truncated and corrupted recordings are
# refused with the offset, never a crash.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
FT=$(target fault-target)
BT=$(target brk-target)
MT=$(target mmap-target)
CHECK=$top_srcdir/tests/system/faults-check.py

# The tool's own lines, without what changes from run to run: addresses,
# pids, the clock, the footer's sample counts, the NOTE of walks cut by
# the stack copy (a recording holds the events and stacks of several
# tools) and the line of back-pressure's pauses (how often the drain was
# late is the run's), the target's own output, and leak's peak (the
# target's threads interleave differently in each run).
norm() {
	grep -v -E '^([a-z_]+=|[a-z_]+ [a-z_]+=|\[[0-9:]+\] |Executing|Reading)' "$1" |
		grep -v -E 'samples, lost|"type":"summary"|^  peak: |^NOTE: .* cut short by the|^the target was paused ' |
		sed -E 's/,"peak_bytes":[0-9]+,"peak_time_s":[0-9.]+//;
			s/"time":"[0-9:]+"/"time":T/;
			s/0x[0-9a-f]+/X/g; s/\[[0-9]+\]/[P]/g; s/"pid":[0-9]+/"pid":P/g;
			s/^[0-9]+( +)/P\1/; s/(from stack of pid )[0-9]+/\1P/'
}

# same WHAT LIVE REPORT: the normalized outputs are equal.
same() {
	norm "$2" >"$T/a"
	norm "$3" >"$T/b"
	[ -s "$T/a" ] || fail "$1: the live output is empty"
	cmp -s "$T/a" "$T/b" || {
		diff "$T/a" "$T/b" | head -20
		fail "$1: the report differs from the live run"
	}
}

# 1. leak-target: one recording of leak, faults, brk and mmap.
run_fl record -e leak,faults,brk,mmap -o "$T/leak.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record status"
cp "$T/out" "$T/leak.truth"
expect_line "^faultline record: [0-9,]+ samples \\(0 lost\\) of leak,faults,brk,mmap in $T/leak.rec, [0-9,]+ B( \\([0-9.]+ [KMGT]iB\\))?$" "$T/err"
for opts in "" "--sort count" "-T 3" "--json"; do
	run_fl leak $opts -c "$LT leaks"
	cp "$T/out" "$T/live"
	[ -n "$opts" ] || cp "$T/out" "$T/live.text"
	run_fl report -i "$T/leak.rec" leak $opts
	expect_eq "$rc" 0 "report leak $opts: status"
	expect_eq "$(grep -c . "$T/err")" 0 "report leak $opts: stderr"
	same "leak $opts" "$T/live" "$T/out"
done
# A time window: nothing allocated in the first microsecond of the run.
run_fl report -i "$T/leak.rec" --until 0.000001 leak
expect_line '^  outstanding:   0 B in 0 allocations from 0 stacks$' "$T/out"
run_fl report -i "$T/leak.rec" --since 0.000001 leak
same "leak --since" "$T/live.text" "$T/out"

# 2. fault-target: faults by stack, by allocation, and ffaults, each
# checked exactly against the target's truth, from one recording.
run_fl record -e leak,faults,ffaults -o "$T/faults.rec" -c "$FT"
expect_eq "$rc" 0 "record fault-target status"
cp "$T/out" "$T/faults.truth"
run_fl report -i "$T/faults.rec" faults --json
expect_eq "$rc" 0 "report faults status"
python3 "$CHECK" stacks "$T/out" "$T/faults.truth" tracepoint || fail "report faults: not exact"
run_fl report -i "$T/faults.rec" faults --by-alloc --json
expect_eq "$rc" 0 "report faults --by-alloc status"
python3 "$CHECK" by-alloc "$T/out" "$T/faults.truth" tracepoint ||
	fail "report faults --by-alloc: not exact"
run_fl report -i "$T/faults.rec" ffaults --json
file=$(sed -n 's/^file=//p' "$T/faults.truth")
expect_line "\"path\":\"$file\".*\"major\":[1-9]" "$T/out"
# -p keeps one recorded process: the forked child's 64 copy-on-write
# writes, and nothing of its parent.
child=$(sed -n 's/^child_pid=//p' "$T/faults.truth")
run_fl report -i "$T/faults.rec" faults -p "$child" --json
python3 "$CHECK" child "$T/out" "$child" || fail "report faults -p CHILD"
# The faults rung, and no kind a recording lacks: major-only from --major.
run_fl report -i "$T/faults.rec" faults --major --json
expect_line '"sym":"read_file\+' "$T/out"
expect_no_line '"sym":"touch_big\+' "$T/out"

# 3. brk-target and mmap-target, against their live runs.
run_fl record -e brk,mmap -o "$T/brk.rec" -c "$BT"
run_fl brk --json -c "$BT"
cp "$T/out" "$T/live"
run_fl report -i "$T/brk.rec" brk --json
same "brk" "$T/live" "$T/out"
run_fl record -e mmap -o "$T/mmap.rec" -c "$MT"
run_fl mmap --json -c "$MT"
cp "$T/out" "$T/live"
run_fl report -i "$T/mmap.rec" mmap --json
cp "$T/out" "$T/rep"
# The recording serves -g too (record takes mmap's stacks whatever the
# options): each call's frames, as a live -g run names them.
run_fl mmap -g --json -c "$MT"
cp "$T/out" "$T/live-g"
run_fl report -i "$T/mmap.rec" mmap -g --json
expect_eq "$rc" 0 "report mmap -g status"
python3 - "$T/live" "$T/rep" "$T/live-g" "$T/out" <<'PY' || fail "mmap: the report differs from the live run"
import json, re, sys
def calls(path, stacks):
    out = []
    for l in open(path):
        if l.startswith("{"):
            o = json.loads(l)
            if o.get("type") not in ("mmap", "munmap"):
                continue
            if stacks:
                out.append([f["sym"] for f in o.get("stack", [])])
                continue
            c = {k: v for k, v in o.items() if k not in ("time", "pid", "tid", "addr")}
            c["file"] = re.sub(r"\.[A-Za-z0-9]{6}$", ".XXXXXX", c.get("file", ""))
            out.append(c)
    return out
for what, live, rep in (("calls", 1, 2), ("stacks", 3, 4)):
    a, b = calls(sys.argv[live], what == "stacks"), calls(sys.argv[rep], what == "stacks")
    if not a or not all(a) or a != b:
        sys.exit("%s: live %d calls, report %d: %s / %s" % (what, len(a), len(b), a[:1], b[:1]))
PY

# 4. script: perf script's layout, as stackcollapse-perf.pl reads it (an
# event line "comm pid/tid [cpu] secs.usecs: period event: fields", frame
# lines "addr sym+off (module)", a blank line after each sample): folded,
# read_file's stack holds the major fault of the evicted file.
run_fl report -i "$T/faults.rec" script
expect_eq "$rc" 0 "report script status"
python3 - "$T/out" <<'PY' || fail "script: not in perf script's layout"
import re, sys
# stackcollapse-perf.pl's patterns: an event line, its event name, a frame.
head = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
evname = re.compile(r":\s*(\d+)*\s+(\S+):\s")
frame = re.compile(r"^\s*([0-9a-f]+)\s*(.+) \((\S*)\)$")
folded, stack, event, n = {}, [], None, 0
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line:
        if event == "exceptions:page_fault_user":
            key = ";".join(reversed(stack))
            folded[key] = folded.get(key, 0) + 1
        stack, event = [], None
        continue
    m = head.match(line)
    if m and not line[0].isspace():
        if event is not None:
            sys.exit("a sample without its blank line: %r" % line)
        e = evname.search(line)
        if not e:
            sys.exit("no event name: %r" % line)
        event, n = e.group(2), n + 1
        continue
    m = frame.match(line)
    if not m or event is None:
        sys.exit("neither an event nor a frame: %r" % line)
    stack.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(2)))
reads = sum(c for k, c in folded.items() if k.endswith(";run_fault_scenario;read_file"))
if n < 300 or reads < 1:
    sys.exit("%d samples, read_file stacks %d" % (n, reads))
PY

# 5. --symfs: a recording moved to another directory, of a target whose
# binary is gone from its recorded path, still symbolizes from a copy below
# DIR, found by its build-id.
mkdir -p "$T/bin" "$T/symfs$T/bin" "$T/moved"
cp "$FT" "$T/bin/ft"
run_fl record -e faults -o "$T/sym.rec" -c "$T/bin/ft"
mv "$T/bin/ft" "$T/symfs$T/bin/ft"
mv "$T/sym.rec" "$T/moved/sym.rec"
run_fl report -i "$T/moved/sym.rec" faults --folded
expect_no_line ';touch_big [0-9]+$' "$T/out"
run_fl report -i "$T/moved/sym.rec" --symfs "$T/symfs" faults --folded
expect_line ';run_fault_scenario;touch_big 99$' "$T/out"
# A different binary at that path is not taken for it (build-id check).
cp "$BT" "$T/symfs$T/bin/ft"
run_fl report -i "$T/moved/sym.rec" --symfs "$T/symfs" faults --folded
expect_no_line ';touch_big [0-9]+$' "$T/out"
# With no binary at all, the debug file named by the recorded build-id.
id=$(readelf -n "$FT" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "no build-id in $FT"
mkdir -p "$T/symfs/usr/lib/debug/.build-id/${id%"${id#??}"}"
cp "$FT" "$T/symfs/usr/lib/debug/.build-id/${id%"${id#??}"}/${id#??}.debug"
rm "$T/symfs$T/bin/ft"
run_fl report -i "$T/moved/sym.rec" --symfs "$T/symfs" faults --folded
expect_line ';run_fault_scenario;touch_big 99$' "$T/out"

# 6. Truncated recordings (a recorder killed, a disk full): reported up to
# their last whole record, said first on stderr and on stdout; cut inside
# the file header or the events' definitions before them, nothing to
# report: one line, exit 1.  Cut inside END only, the
# report's rows are the whole recording's.  Corrupted ones: one line, exit 1,
# the offset.
size=$(stat -c %s "$T/brk.rec")
run_fl report -i "$T/brk.rec" brk
grep -v '^[0-9]* samples, ' "$T/out" >"$T/whole.out"
for cut in 10 100; do
	head -c "$cut" "$T/brk.rec" >"$T/cut.rec"
	run_fl report -i "$T/cut.rec" brk
	expect_eq "$rc" 1 "truncated at $cut: status"
	expect_eq "$(grep -c . "$T/err")" 1 "truncated at $cut: one line"
	expect_line "ends inside its header|is truncated .*offset [0-9]+" "$T/err"
done
for cut in $((size / 2)) $((size - 1)); do
	head -c "$cut" "$T/brk.rec" >"$T/cut.rec"
	n=$(python3 "$top_srcdir/tests/system/rec-edit.py" "$T/brk.rec" cut "$cut")
	run_fl report -i "$T/cut.rec" brk
	expect_eq "$rc" 0 "truncated at $cut: status"
	expect_eq "$(grep -c . "$T/err")" 1 "truncated at $cut: one line"
	expect_line "^faultline report: warning: the recording ends early at [0-9]+\.[0-9]{3} s \($n bytes of a record cut off\): no END record$" "$T/err"
	expect_eq "$(head -n 1 "$T/out")" "WARNING: $(sed 's/^faultline report: warning: //' "$T/err")" \
		"truncated at $cut: the first line of the report"
done
sed 1d "$T/out" | grep -v '^[0-9]* samples, ' | diff -u "$T/whole.out" - ||
	fail "cut inside END: the report differs from the whole recording's"
run_fl report -i "$T/cut.rec" brk --json
expect_line '^\{"type":"truncated","ends_at_s":[0-9.]+,"cut_bytes":'"$n"',"message":"the recording ends early at ' "$T/out"
# 1 KiB of 0xff mid-file: it spans a record header, whose length then
# overruns the file.
cp "$T/brk.rec" "$T/bad.rec"
head -c 1024 /dev/zero | tr '\0' '\377' |
	dd of="$T/bad.rec" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run_fl report -i "$T/bad.rec" brk
expect_eq "$rc" 1 "corrupted: status"
expect_eq "$(grep -c . "$T/err")" 1 "corrupted: one line"
expect_line 'offset [0-9]+' "$T/err"
# Not a recording at all.
run_fl report -i "$T/live" brk
expect_eq "$rc" 1 "not a recording: status"
expect_eq "$(grep -c . "$T/err")" 1 "not a recording: one line"
run_fl report -i "$T/nonexistent.rec" brk
expect_eq "$rc" 1 "missing file: status"

# 7. What a recording cannot answer, and usage.
run_fl report -i "$T/brk.rec" leak
expect_eq "$rc" 1 "leak from a brk recording: status"
expect_line 'holds no events for it \(recorded: brk,mmap\)' "$T/err"
run_fl report -i "$T/brk.rec" brk -c true
expect_eq "$rc" 2 "report with -c: usage error"
run_fl report brk
expect_eq "$rc" 2 "report without -i: usage error"
run_fl record -e nosuch -o "$T/x.rec" -c true
expect_eq "$rc" 2 "record -e nosuch: usage error"

# 8. Without -e: a tool of the default list that cannot serve the target
# (cache counts the page cache system-wide, not for -c) is left out without
# a line, as perf record leaves a default event it cannot open; the only
# lines are the allocator's probes, the command's start and the result.
# -v says why; the recording keeps it, for report info and report cache.
run_fl record -o "$T/all.rec" -c true
expect_eq "$rc" 0 "record without -e: status"
grep -v -E "^(faultline leak: probing |Executing 'true' and tracing memory events with |faultline record: [0-9,]+ samples \(0 lost\) of )" "$T/err" >"$T/noise"
expect_eq "$(cat "$T/noise")" "" "record without -e: lines on stderr"
tools=$(sed -n 's/^faultline record: [0-9,]* samples (0 lost) of \([a-z,]*\) in .*/\1/p' "$T/err")
case ,$tools, in
,,) fail "record without -e: no result line" ;;
*,cache,*) fail "record without -e -c: cache recorded ($tools)" ;;
esac
run_fl report -i "$T/all.rec" info
pid=$(sed -n 's/^target_pid  *//p' "$T/out")
why="the page cache is counted system-wide (one process: faultline cachetop -p), not for pid '$pid' (see 'faultline cache -h')"
expect_eq "$(grep '^left out ' "$T/out")" "left out     cache: $why" "report info: the tool left out"
run_fl report -i "$T/all.rec" cache
expect_eq "$rc" 1 "report cache of a recording without it: status"
expect_eq "$(cat "$T/err")" "faultline cache: the recording $T/all.rec holds no events for it (recorded: $tools); record left it out: $why" \
	"report cache of a recording without it: the refusal"
run_fl record -v -o "$T/all-v.rec" -c true
expect_eq "$rc" 0 "record -v without -e: status"
expect_line "^faultline cache: the page cache is counted system-wide \(one process: faultline cachetop -p\), not for pid '[0-9]+'" "$T/err"
expect_line "^faultline record: 'cache' left out \(above: why\)\$" "$T/err"

assert_no_stale_probes
pass_or_fail
