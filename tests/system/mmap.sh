#!/bin/sh
# faultline mmap against mmap-target, which makes a known sequence of
# mmap/munmap calls (anonymous and file-backed, private and shared, RW, R,
# none) from named functions and prints each call's ground truth: every
# call must appear with its exact address, length, protection, flags,
# offset and file, from the right function, and the per-process totals must
# add up; on the tracepoint rung and on the libc uprobe rung.
. "$top_srcdir/tests/system/lib.sh"
need_root
MT=$(target mmap-target)

# check_calls OUTFILE INNERMOST: every ground-truth line of the target has
# exactly one JSON record; INNERMOST=fn (raw syscalls: the named function is
# the innermost frame) or libc (libc's wrapper is, and fp skips the caller).
check_calls() {
	python3 - "$@" <<'PY' || fail "call check ($2)"
import json, re, sys
path, mode = sys.argv[1], sys.argv[2]
truth, recs, procs, pid, tfile = [], [], [], None, None
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("{"):
        o = json.loads(line)
        if o["type"] in ("mmap", "munmap"):
            recs.append(o)
        elif o["type"] == "process":
            procs.append(o)
    elif line.startswith(("mmap ", "munmap ")):
        kind, rest = line.split(" ", 1)
        d = dict(kv.split("=", 1) for kv in rest.split())
        d["kind"] = kind
        truth.append(d)
    elif line.startswith("pid="):
        pid = int(line[4:])
    elif line.startswith("file="):
        tfile = line[5:]
errs = []
mine = [r for r in recs if r["pid"] == pid]
if len(truth) != 10:
    errs.append("target printed %d calls, expected 10" % len(truth))
for t in truth:
    addr = int(t["addr"], 16)
    m = [r for r in mine if r["type"] == t["kind"] and int(r["addr"], 16) == addr
         and r["len"] == int(t["len"])]
    if len(m) != 1:
        errs.append("%s at %#x len %s: %d records" % (t["kind"], addr, t["len"], len(m)))
        continue
    r = m[0]
    if r["error"] is not None:
        errs.append("%s at %#x: error %s" % (t["kind"], addr, r["error"]))
    if t["kind"] == "mmap":
        for k in ("prot", "flags"):
            if r[k] != t[k]:
                errs.append("%#x %s %s, want %s" % (addr, k, r[k], t[k]))
        if r["off"] != int(t["off"]) or r["fd"] != int(t["fd"]):
            errs.append("%#x off/fd %s/%s, want %s/%s" % (addr, r["off"], r["fd"], t["off"], t["fd"]))
        want_file = tfile if int(t["fd"]) >= 0 else ""
        if r["file"] != want_file:
            errs.append("%#x file %r, want %r" % (addr, r["file"], want_file))
    names = [f["sym"].split("+")[0].split(" ")[0] for f in r.get("stack", [])]
    if mode == "fn":
        if not names or names[0] != t["fn"]:
            errs.append("%#x innermost frame %s, want %s" % (addr, names[:1], t["fn"]))
    elif mode == "dwarf-libc":
        # DWARF walks through the wrapper to the named function.
        if len(names) < 2 or "libc.so" not in r["stack"][0]["sym"] or names[1] != t["fn"]:
            errs.append("%#x stack %s, want libc wrapper then %s" % (addr, names[:3], t["fn"]))
    else:
        # The wrapper has no frame pointer, so the walk skips the named
        # function and resumes at its caller.
        want = "run_mmap_scenario"
        if len(names) < 2 or "libc.so" not in r["stack"][0]["sym"] or names[1] != want:
            errs.append("%#x stack %s, want libc wrapper then %s" % (addr, names[:3], want))
if len(procs) != 1 or procs[0]["pid"] != pid:
    errs.append("want one process summary for pid %s, got %d" % (pid, len(procs)))
else:
    p = procs[0]
    page = 4096
    rnd = lambda n: (n + page - 1) // page * page
    ok = [r for r in mine if r["error"] is None]
    mapped = sum(rnd(r["len"]) for r in ok if r["type"] == "mmap")
    unmapped = sum(rnd(r["len"]) for r in ok if r["type"] == "munmap")
    if (p["mapped"], p["unmapped"], p["net"]) != (mapped, unmapped, mapped - unmapped):
        errs.append("summary %s/%s/%s, records say %s/%s" % (p["mapped"], p["unmapped"], p["net"], mapped, unmapped))
    if p["mmaps"] != len([r for r in ok if r["type"] == "mmap"]):
        errs.append("summary mmaps %d != records" % p["mmaps"])
if errs:
    sys.exit("\n".join(errs))
PY
}

# 1. Raw syscalls, tracepoint rung, with stacks (both call graphs).
run_fl mmap --json -g --call-graph fp -c "$MT --raw"
expect_eq "$rc" 0 "mmap --raw fp status"
check_calls "$T/out" fn
run_fl mmap --json -g -c "$MT --raw"
expect_eq "$rc" 0 "mmap --raw status"
grep '^{' "$T/out" >"$T/json"
expect_json_lines "$T/json"
check_calls "$T/out" fn
expect_line '"type":"summary".*"lost":0' "$T/out"

# 2. Through libc, tracepoint rung: DWARF (the default) walks through the
#    wrapper; frame pointers lose the named function.
run_fl mmap --json -g -c "$MT"
expect_eq "$rc" 0 "mmap libc status"
check_calls "$T/out" dwarf-libc
run_fl mmap --json -g --call-graph fp -c "$MT"
expect_eq "$rc" 0 "mmap libc fp status"
check_calls "$T/out" libc

# 3. The uprobe rung: libc's mmap/munmap entry and return probes.
FAULTLINE_MASK='syscalls:*' run_fl mmap --json -g -c "$MT"
expect_eq "$rc" 0 "mmap uprobe rung status"
expect_line "falling back to uprobe\+uretprobe libc mmap/munmap" "$T/err"
check_calls "$T/out" dwarf-libc

# 4. Text output: the columns a user reads.
run_fl mmap -c "$MT --raw"
expect_eq "$rc" 0 "mmap text status"
pid=$(sed -n 's/^pid=//p' "$T/out")
file=$(sed -n 's/^file=//p' "$T/out")
expect_line "^[0-9:]{8} +$pid +mmap-target +mmap +0x[0-9a-f]+ +65536 RW- +PRIVATE\|ANONYMOUS +0 *$" "$T/out"
expect_line "^[0-9:]{8} +$pid +mmap-target +mmap +0x[0-9a-f]+ +12288 R-- +PRIVATE +4096 $file$" "$T/out"
expect_line "^[0-9:]{8} +$pid +mmap-target +mmap +0x[0-9a-f]+ +8192 RW- +SHARED\|ANONYMOUS +0 *$" "$T/out"
expect_line "^[0-9:]{8} +$pid +mmap-target +mmap +0x[0-9a-f]+ +16384 --- +PRIVATE\|ANONYMOUS\|NORESERVE +0 *$" "$T/out"
expect_line "^[0-9:]{8} +$pid +mmap-target +munmap +0x[0-9a-f]+ +524288$" "$T/out"
expect_line "^PID +COMM +MMAPS +MUNMAPS +FAILED +MAPPED\(B\) +UNMAPPED\(B\) +NET\(B\)$" "$T/out"
expect_line "^$pid +mmap-target +[0-9]+ +[0-9]+ +0 +[0-9]+ +[0-9]+ +-?[0-9]+$" "$T/out"

# 5. -T: seconds since the start instead of wall-clock time.
run_fl mmap -T -c "$MT --raw"
expect_line "^[0-9]+\.[0-9]{6} +[0-9]+ +mmap-target +mmap " "$T/out"
pass_or_fail
