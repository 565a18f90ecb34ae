#!/bin/sh
# faultline swapin against reclaim-target on a zram swap device set up here
# (64 MiB, removed at exit; skipped where zram0 or swapon is missing, or
# zram0 is already in use).  The target writes a pattern into 2000 private
# anonymous pages (no THP), pushes them out with MADV_PAGEOUT, counts from
# /proc/self/pagemap how many went to swap (MADV_PAGEOUT is best effort: on
# a busy machine a few pages may stay, so the count the kernel reports is
# the truth, not 2000), waits on a FIFO until faultline says it is
# tracing, then reads one byte of each.
#
# What is exact, and why: zram is a synchronous swap device, so a fault on
# a page swapped out by one process skips the swap cache and readahead and
# reads exactly that page: one major fault per swapped page.  The target's
# own counts (pagemap before/after, getrusage majflt) are the truth.  The
# major-fault rung, the one this kprobe-less kernel uses, must report the
# target's pid with a count equal to majflt and to the pages swapped in.
# The /proc/vmstat rung (FAULTLINE_MASK) counts every process's pages: at
# least the target's, at most /proc/vmstat's own delta over the run.  The
# kprobe rungs are checked as a plan on fixture trees (no kprobes here).
. "$top_srcdir/tests/system/lib.sh"
need_root
RT=$(target reclaim-target)
PAGES=2000
ZRAM=/sys/block/zram0
FIX=$top_srcdir/tests/fixtures/kernels

# 0. The plan on other kernels: which rung each fixture tree gets.
plan() {
	"$FAULTLINE" features --root "$FIX/$1" 2>/dev/null |
		awk '$1 == "swapin" { sub("^swapin +", ""); sub(" \\(loses:.*", ""); print; exit }'
}
expect_eq "$(plan rhel7-3.10)" "kprobe swap_readpage" "swapin plan on RHEL 7 (3.10)"
expect_eq "$(plan ubuntu-4.15)" "kprobe swap_readpage" "swapin plan on Ubuntu 4.15"
expect_eq "$(plan no-uprobes)" "kprobe swap_read_folio" "swapin plan on a kprobe kernel with swap_read_folio"
expect_eq "$(plan 6.18-lockdown)" "major faults in anonymous/shmem mappings (software event with fault address)" \
	"swapin plan under lockdown (kprobes refused)"
"$FAULTLINE" features 2>/dev/null | grep -A3 '^swapin ' >"$T/live-plan"
if [ -e "$(tracing_dir)/kprobe_events" ]; then
	echo "this kernel has kprobes: the live rung is a kprobe one"
else
	expect_line '^swapin +major faults in anonymous/shmem mappings' "$T/live-plan"
	expect_line 'refused kprobe swap_read_folio: kprobes absent' "$T/live-plan"
fi

# A report takes the rung its recording holds the events of, record's
# choice: no "falling back" line about the rungs above it, which the
# recording lacks; report info names the rung, with what it loses, as
# features does.
run_fl record -e swapin -o "$T/si.rec" -c true
expect_eq "$rc" 0 "record -e swapin: status"
run_fl report -i "$T/si.rec" swapin
expect_eq "$rc" 0 "report swapin: status"
expect_eq "$(cat "$T/err")" "" "report swapin: stderr"
run_fl report -i "$T/si.rec" info
expect_eq "$(sed -n 's/^rung  *swapin: //p' "$T/out")" \
	"$(awk '$1 == "swapin" { sub("^swapin +", ""); print; exit }' "$T/live-plan")" \
	"report info: swapin's rung, as features says it"

# Swap on zram.
[ -d "$ZRAM" ] || skip "no $ZRAM (the zram module is not loaded; this test does not modprobe)"
command -v mkswap >/dev/null && command -v swapon >/dev/null && command -v swapoff >/dev/null ||
	skip "mkswap/swapon/swapoff missing"
[ "$(cat "$ZRAM/disksize")" = 0 ] || skip "zram0 is in use (disksize $(cat "$ZRAM/disksize"))"
grep -q '^/dev/zram0 ' /proc/swaps && skip "zram0 is already swap"
ZRAM_MADE=
cleanup_swap() {
	[ -n "$ZRAM_MADE" ] || return 0
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset" || echo "swapin.sh: could not reset zram0" >&2
}
at_exit 'cleanup_swap'
echo 64M >"$ZRAM/disksize" || skip "cannot size zram0"
ZRAM_MADE=1
mkswap /dev/zram0 >/dev/null || skip "mkswap /dev/zram0 failed"
swapon /dev/zram0 || skip "swapon /dev/zram0 failed"

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# start_target NAME: the target swaps its pages out, then waits on the
# FIFO $go before swapping them in; pid in $tpid.
start_target() {
	go_fifo "$1"
	go=$fifo
	spawn_at_fifo "$1" "$RT" --pageout "$PAGES" --go "$go"
	grep -q '^swapped_out=' "$T/$1.out" || fail "$1: target did not swap out: $(cat "$T/$1.err")"
	tpid=$(truth pid "$T/$1.out")
}
wait_target() {
	wait_until "$FL_READY_TIMEOUT" grep -q '^swapped_in=' "$T/$1.out" ||
		fail "$1: target did not finish: $(cat "$T/$1.err")"
}
# check_truth NAME: pages did go to swap (how many is the kernel's
# choice), and every one came back, by at least one major fault each.
# getrusage's majflt is an upper bound, not the count: the kernel counts a
# retried fault as major (FAULT_FLAG_TRIED), so a fault on a file page that
# was locked at that moment (another process reading the same file: CI
# saw majflt=2001 for 2000 swap-ins) adds one.  faultline's count, of
# faults in anonymous/shmem mappings only, is checked against the pages
# pagemap saw come back, exactly.
check_truth() {
	so=$(truth swapped_out "$T/$1.out")
	si=$(truth swapped_in "$T/$1.out")
	mf=$(truth majflt "$T/$1.out")
	echo "$1: pages=$PAGES swapped_out=$so swapped_in=$si majflt=$mf"
	[ "${so:-0}" -gt 0 ] && [ "$so" -le "$PAGES" ] ||
		fail "$1: $so pages in swap after MADV_PAGEOUT of $PAGES"
	expect_eq "$si" "$so" "$1: pages swapped back in"
	[ "${mf:-0}" -ge "$si" ] ||
		fail "$1: $mf major faults for $si pages swapped in (one per page on zram)"
}
# live_run NAME ARGS...: faultline swapin ARGS (an interval, no count)
# started, the target released once it traces, stopped with SIGINT once
# the target is done: every swap-in falls inside the run, however slow
# the machine.  Output in $T/fl-NAME.out/.err, status in $rc (130).
live_run() {
	local name=$1 fl
	shift
	spawn "fl-$name" "$FAULTLINE" swapin "$@"
	fl=$spawned
	wait_ready "$T/fl-$name.err" "swapin $*" && release "$go"
	wait_target "$name"
	kill -INT "$fl"
	wait_exit "$fl" "swapin $*"
}

# 1. -p, JSON: the target's count is exact.  faultline -p ends when the
# target exits.
start_target t1
run_fl_go "$go" swapin --json -p "$tpid"
wait_target t1
expect_eq "$rc" 0 "swapin -p status"
expect_json_lines "$T/out"
check_truth t1
python3 - "$T/out" "$tpid" "$si" <<'PY' || fail "swapin -p json"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid, want = int(sys.argv[2]), int(sys.argv[3])
rows = [e for e in evs if e["type"] == "swapin"]
got = sum(e["count"] for e in rows if e["pid"] == pid)
if got != want:
    sys.exit("count %d for pid %d, the target swapped in %d pages" % (got, pid, want))
if any(e["pid"] != pid for e in rows):
    sys.exit("-p reported other pids: %s" % rows)
if any(e["comm"] != "reclaim-target" for e in rows):
    sys.exit("comm: %s" % rows)
PY

# 2. System-wide, BCC's text: "interval", time lines, sorted rows; the
# interval in progress at Ctrl-C is reported too.
start_target t2
live_run t2 1
expect_stopped INT swapin "$T/fl-t2.err" "swapin 1"
check_truth t2
cp "$T/fl-t2.out" "$T/out"
n=$(grep -c '^COMM             PID     COUNT$' "$T/out")
[ "$n" -ge 1 ] || fail "no report from 'swapin 1'"
expect_eq "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/out")" "$n" "time lines, one per report"
got=$(awk -v pid="$tpid" '$2 == pid && $1 == "reclaim-target" { s += $3 } END { print s + 0 }' "$T/out")
expect_eq "$got" "$si" "system-wide count of the target"
awk '/^COMM/ { last = -1; next } NF == 3 && $3 ~ /^[0-9]+$/ { if ($3 < last) bad = 1; last = $3 } END { exit bad }' "$T/out" ||
	fail "rows not sorted by count, ascending"

# 3. -T: no time lines (BCC's --notime).
run_fl swapin -T 0.5 2
expect_eq "$rc" 0 "swapin -T status"
expect_eq "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/out")" 0 "time lines with -T"
expect_eq "$(grep -c '^COMM ' "$T/out")" 2 "reports of 'swapin -T 0.5 2'"

# 4. The /proc/vmstat rung, for real: perf events (and kprobes) masked.
start_target t4
before=$(awk '$1 == "pswpin" { print $2 }' /proc/vmstat)
FAULTLINE_MASK=perf_events,kprobes
export FAULTLINE_MASK
live_run t4 1
unset FAULTLINE_MASK
after=$(awk '$1 == "pswpin" { print $2 }' /proc/vmstat)
expect_stopped INT swapin "$T/fl-t4.err" "vmstat rung"
check_truth t4
cp "$T/fl-t4.out" "$T/out"
expect_line 'falling back to /proc/vmstat pswpin \(system-wide\)' "$T/fl-t4.err"
n=$(grep -cE '^\[system-wide\] +- +[0-9]+$' "$T/out")
[ "$n" -ge 1 ] || fail "vmstat rung: no system-wide line"
expect_eq "$(grep -c '^COMM ' "$T/out")" "$n" "vmstat rung: one system-wide line per report"
sw=$(awk '$1 == "[system-wide]" { s += $3 } END { print s + 0 }' "$T/out")
echo "vmstat rung: $sw pages system-wide, target $si, /proc/vmstat delta $((after - before))"
[ "$sw" -ge "$si" ] || fail "vmstat rung: $sw pages < the target's $si"
[ "$sw" -le $((after - before)) ] || fail "vmstat rung: $sw pages > /proc/vmstat's delta $((after - before))"
FAULTLINE_MASK=perf_events,kprobes
export FAULTLINE_MASK
run_fl swapin -p $$ 0.2 1
unset FAULTLINE_MASK
expect_line 'is system-wide: it cannot be limited to one process' "$T/err"

# 5. Usage errors.
run_fl swapin 0
expect_eq "$rc" 2 "swapin 0"
run_fl swapin 1 0
expect_eq "$rc" 2 "swapin 1 0"
run_fl swapin 1 2 3
expect_eq "$rc" 2 "swapin 1 2 3"

pass_or_fail
