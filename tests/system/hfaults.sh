#!/bin/sh
# faultline hfaults against huge-target, which faults in 4 THPs (MADV_HUGEPAGE),
# 3 hugetlb pages (MAP_HUGETLB) and 64 ordinary pages, and prints how many
# huge pages it really got (smaps): the target's THP and HUGETLB counts must
# equal those exactly, the ordinary pages must not count, on the page-flags
# rung with the exceptions tracepoints and with the page-faults software
# event (FAULTLINE_MASK), with -c, -p and -a; with both masked, one line
# says there is no source.  The hugetlb pool (vm.nr_hugepages) is raised
# for the test and put back as it was; skipped (77) only if the kernel
# refuses the pages.  The kprobe rung is checked on fixture trees.
. "$top_srcdir/tests/system/lib.sh"
need_root
HT=$(target huge-target)
FIX=$top_srcdir/tests/fixtures/kernels
NR=/proc/sys/vm/nr_hugepages

free_huge() { awk '$1 == "HugePages_Free:" { print $2 }' /proc/meminfo; }

# ---- the hugetlb pool: 4 free pages (the target takes 3; test-pageflags,
# which may run meanwhile, 1), put back at exit whatever happens.
[ -w "$NR" ] || skip "no $NR: the kernel has no hugetlb pages"
old_nr=$(cat "$NR")
restore_nr() {
	if [ "$(cat "$NR")" != "$old_nr" ]; then
		echo "$old_nr" >"$NR" 2>/dev/null || :
	fi
}
at_exit 'restore_nr'
free=$(free_huge)
if [ "$free" -lt 4 ]; then
	echo $((old_nr + 4 - free)) >"$NR" 2>/dev/null || :
	free=$(free_huge)
	[ "$free" -ge 3 ] || skip "the kernel refused hugetlb pages (vm.nr_hugepages $old_nr -> $(cat "$NR"), $free free)"
fi

# check OUT JSON: the target's process line equals its ground truth, and
# nothing was lost.
check() {
	python3 - "$1" "$2" <<'PY' || fail "hfaults check: $3"
import json, re, sys
truth_path, json_path = sys.argv[1:3]
truth = {}
for l in open(truth_path):
    m = re.match(r"(\w+)=(\w+)$", l.strip())
    if m:
        truth[m.group(1)] = m.group(2)
pid = int(truth["pid"])
thp, hugetlb = int(truth["thp_pages"]), int(truth["hugetlb_pages"])
procs, summary, unresolved = {}, None, None
for l in open(json_path):
    if not l.startswith("{"):
        continue
    o = json.loads(l)
    if o["type"] == "process":
        procs[o["pid"]] = o
    elif o["type"] == "summary":
        summary = o
    elif o["type"] == "unresolved":
        unresolved = o
errs = []
if not summary or summary["lost"]:
    errs.append("summary: %s" % summary)
if unresolved is None:
    errs.append("no unresolved line")
p = procs.get(pid)
if not p:
    errs.append("pid %d missing: %s" % (pid, procs))
else:
    if (p["thp"], p["hugetlb"], p["hfaults"]) != (thp, hugetlb, thp + hugetlb):
        errs.append("pid %d: thp %d hugetlb %d hfaults %d, want %d %d %d (%s)" % (
            pid, p["thp"], p["hugetlb"], p["hfaults"], thp, hugetlb, thp + hugetlb, unresolved))
    if p["comm"] != "huge-target":
        errs.append("comm %r" % p["comm"])
if errs:
    sys.exit("; ".join(errs))
PY
}

# The page-flags rung looks each fault's page up when it reads the event:
# the target must still be alive then.  So the target holds after its work
# on a FIFO nobody opens (--end; at the end faultline's SIGTERM, or the
# test's, ends it), and faultline is stopped with SIGINT once the target
# printed its truth: every fault is read, in the final drain at the
# latest, while the target lives.  No --hold-ms guesses how long that is.
go_fifo end
END=$fifo

# held TRUTHFILE ARGS...: faultline hfaults ARGS in the background until
# the target printed its truth ("pid=" last) in TRUTHFILE, then Ctrl-C;
# output in $T/out and $T/err, status in $rc (130: stopped by SIGINT,
# the command still running).
held() {
	local truthf=$1 fl
	shift
	echo "+ faultline hfaults $*"
	spawn fl "$FAULTLINE" hfaults "$@"
	fl=$spawned
	wait_until "$FL_TIMEOUT" grep -q '^pid=' "$truthf" || fail "hfaults $*: the target did not finish"
	kill -INT "$fl"
	wait_exit "$fl" "hfaults $*"
	cp "$T/fl.out" "$T/out"
	cp "$T/fl.err" "$T/err"
}

# 1. The page-flags rung with the exceptions tracepoints, -c.
held "$T/fl.out" --json -c "$HT --end $END"
expect_stopped INT hfaults "$T/err" "hfaults -c"
grep -q '^hugetlb_pages=3$' "$T/out" ||
	fail "the target got no hugetlb pages: $(grep -E '^(hugetlb_pages|reason)=' "$T/out")"
grep -q '^thp_pages=0$' "$T/out" &&
	skip "the kernel gave the target no THP ($(cat /sys/kernel/mm/transparent_hugepage/enabled))"
grep -q '^thp_region_pages=4$' "$T/out" || echo "note: $(grep '^thp_region_pages=' "$T/out") of 4"
check "$T/out" "$T/out" "tracepoint, -c"
expect_line 'falling back to every user fault, its page classified by /proc/PID/pagemap' "$T/err"
expect_line "^Executing '.*huge-target --end .*' and tracing huge page faults with " "$T/err"

# 2. The same with the software event forced.
FAULTLINE_MASK='exceptions:page_fault_user'
export FAULTLINE_MASK
held "$T/fl.out" --json -c "$HT --end $END"
unset FAULTLINE_MASK
expect_stopped INT hfaults "$T/err" "hfaults software event"
check "$T/out" "$T/out" "software event, -c"

# 3. Text: the table, sorted, and the footer.
held "$T/fl.out" -c "$HT --end $END"
expect_stopped INT hfaults "$T/err" "hfaults text"
pid=$(sed -n 's/^pid=//p' "$T/out")
thp=$(sed -n 's/^thp_pages=//p' "$T/out")
ht=$(sed -n 's/^hugetlb_pages=//p' "$T/out")
expect_line '^PID +COMM +HFAULTS +THP +HUGETLB$' "$T/out"
expect_line "^$pid +huge-target +$((thp + ht)) +$thp +$ht\$" "$T/out"
expect_line '^[0-9,]+ samples, lost 0 events' "$T/out"

# 4. -p: attach while the target waits (--go), released once tracing.
go_fifo ht
spawn_at_fifo ht "$HT" --go "$fifo" --end "$END"
htpid=$spawned
spawn fl "$FAULTLINE" hfaults --json -p "$htpid"
fl=$spawned
wait_ready "$T/fl.err" "hfaults -p" && release "$fifo"
wait_until "$FL_TIMEOUT" grep -q '^pid=' "$T/ht.out" || fail "hfaults -p: the target did not finish"
kill -INT "$fl"
wait_exit "$fl" "hfaults -p"
expect_stopped INT hfaults "$T/fl.err" "hfaults -p"
check "$T/ht.out" "$T/fl.out" "-p"
release "$END"
wait_exit "$htpid" "huge-target -p"
expect_eq "$rc" 0 "huge-target -p status"

# 5. -a, the target started once faultline is tracing; -T 1 keeps the top
# process only.
spawn fl "$FAULTLINE" hfaults --json -a
fl=$spawned
wait_ready "$T/fl.err" "hfaults -a"
spawn ht-a "$HT" --end "$END"
htpid=$spawned
wait_until "$FL_TIMEOUT" grep -q '^pid=' "$T/ht-a.out" || fail "hfaults -a: the target did not finish"
kill -INT "$fl"
wait_exit "$fl" "hfaults -a"
expect_stopped INT hfaults "$T/fl.err" "hfaults -a"
check "$T/ht-a.out" "$T/fl.out" "-a"
release "$END"
wait_exit "$htpid" "huge-target -a"
expect_eq "$rc" 0 "huge-target -a status"
held "$T/fl.out" --json -T 1 -c "$HT --end $END"
expect_eq "$(grep -c '"type":"process"' "$T/out")" 1 "-T 1: process lines"

# 6. Nothing left: one line, exit 1, the target never started.
FAULTLINE_MASK='exceptions:page_fault_user,perf_events' run_fl hfaults -c "$HT"
expect_eq "$rc" 125 "no source: status (faultline failed, a command given)"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "no source: stderr lines"
expect_line '^faultline hfaults: this kernel offers no event source for it: kprobes .*perf_events absent \(masked by FAULTLINE_MASK\)' "$T/err"
expect_no_line 'pid=' "$T/out"

# 7. Usage errors: one line, exit 2.
for args in "-T 0" "-T x" "-T" "-x" "1 2" "-p 1 -c true" "--folded"; do
	run_fl hfaults $args
	expect_eq "$rc" 2 "hfaults $args: status"
	expect_eq "$(grep -c . "$T/err")" 1 "hfaults $args: stderr lines"
done

# 8. The kprobe rung where kallsyms has both functions (fixtures).
# RHEL 7's 3.10 has both (its tree copied from the el7 guest by check-vm).
for t in 5.4-kprobes 6.1-kprobes 6.18-kprobes rhel7-3.10; do
	got=$("$FAULTLINE" features --root "$FIX/$t" | awk '$1 == "hfaults" { sub("^hfaults +", ""); print; exit }')
	[ "$got" = "kprobes hugetlb_fault, do_huge_pmd_anonymous_page" ] ||
		fail "--root $t: hfaults chose '$got'"
done
# Without them (a copy of rhel7-3.10 whose kallsyms lacks hugetlb_fault):
# the page-flags rung, and the refusal says why.
cp -r "$FIX/rhel7-3.10" "$T/nohf"
sed -i '/ hugetlb_fault$/d' "$T/nohf/proc/kallsyms"
"$FAULTLINE" features --root "$T/nohf" >"$T/f"
case $(awk '$1 == "hfaults" { sub("^hfaults +", ""); print; exit }' "$T/f") in
"every user fault, its page classified by /proc/PID/pagemap"*) ;;
*) fail "rhel7-3.10 without hugetlb_fault: hfaults not on page-flags" ;;
esac
expect_line 'refused kprobes hugetlb_fault, do_huge_pmd_anonymous_page: kernel function hugetlb_fault unusable \(no hugetlb_fault in ' "$T/f"
"$FAULTLINE" features --root "$FIX/6.18-kprobes" | grep -q '^ *fallback every user fault, its page classified' ||
	fail "6.18-kprobes: page-flags not listed as a fallback"

# A kernel without /proc/kpageflags (CONFIG_PROC_PAGE_MONITOR=n) has no
# page-flags rung: a copy of the one above without the file.
cp -r "$T/nohf" "$T/nokpf"
rm "$T/nokpf/proc/kpageflags"
"$FAULTLINE" features --root "$T/nokpf" >"$T/f"
expect_line '^hfaults +none available' "$T/f"
expect_line 'refused every user fault, its page classified .*: .*/proc/kpageflags unreadable \(No such file or directory\)' "$T/f"

# 9. The pool as it was.
restore_nr
expect_eq "$(cat "$NR")" "$old_nr" "vm.nr_hugepages restored"

pass_or_fail
