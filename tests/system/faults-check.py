#!/usr/bin/env python3
"""faults-check: the exact checks of `faultline faults` against
fault-target's printed truth, shared by faults.sh (live) and record.sh
(the same from a recording, through faultline report).

usage: faults-check.py stacks|by-alloc JSONFILE TARGETOUT RUNG
       faults-check.py child JSONFILE CHILD_PID
  stacks    per toucher, the stack whose innermost frame is the toucher has
            exactly touched_pages - before_touch faults; the child's 64
            copy-on-write faults; the file read's major fault; process
            totals equal the sum of their stacks.
  by-alloc  per allocation site, the faults outside the allocator equal
            touched_pages - before_touch, those inside it the target's own
            count over the allocator call, all its faults the touched pages
            no earlier site shares; bytes, allocations, classes exact; the
            child's copy-on-write faults on its copy of fork_buffer's block;
            sites and regions add up to the total.
  child     a report of the child alone (-p CHILD_PID): every stack its
            own, and its 64 copy-on-write faults.
RUNG is tracepoint or software (no fault kinds there).
Exits non-zero with the differences on stderr.
"""
import json, re, sys


def stacks(path, out, rung):
    touched, resident, truth = {}, {}, {}
    for l in open(out):
        l = l.strip()
        m = re.match(r"site fn=(\w+) kind=\w+ bytes=\d+ touched_pages=(\d+)$", l)
        if m: touched[m.group(1)] = int(m.group(2))
        m = re.match(r"resident fn=(\w+) before_touch=(\d+)$", l)
        if m: resident[m.group(1)] = int(m.group(2))
        m = re.match(r"(\w+)=(\d+)$", l)
        if m: truth[m.group(1)] = int(m.group(2))
    toucher = {"alloc_heap": "touch_heap", "alloc_big": "touch_big", "alloc_zeroed": "touch_zeroed",
               "map_anon": "touch_anon", "fork_buffer": "touch_fork"}
    stacks, procs = [], {}
    for l in open(path):
        if l.startswith("{"):
            o = json.loads(l)
            if o["type"] == "stack":
                o["names"] = [f["sym"].split("+")[0] for f in o["stack"]]
                stacks.append(o)
            elif o["type"] == "process":
                procs[o["pid"]] = o
            elif o["type"] == "summary" and o["lost"]:
                sys.exit("lost %d events" % o["lost"])
    errs = []
    def faults_of(fn, pid):
        return sum(s["faults"] for s in stacks if s["pid"] == pid and s["names"] and s["names"][0] == fn)
    pid, child = truth["pid"], truth["child_pid"]
    for site, fn in toucher.items():
        want = touched[site] - resident[site]
        got = faults_of(fn, pid)
        if got != want:
            errs.append("%s: %d faults, want %d (%d touched, %d resident)" % (fn, got, want, touched[site], resident[site]))
    if faults_of("touch_small", pid) != touched["alloc_small"] - resident["alloc_small"]:
        errs.append("touch_small: %d faults" % faults_of("touch_small", pid))
    err = cow_check([s for s in stacks if s["pid"] == child], child)
    if err:
        errs.append(err)
    # The file was evicted: its read faults, at least once, are major (the
    # kernel maps the 16 pages around one fault, so count pages elsewhere).
    rf = [s for s in stacks if s["pid"] == pid and s["names"] and s["names"][0] == "read_file"]
    if not rf or sum(s["major"] for s in rf) < 1:
        errs.append("read_file: no major fault: %s" % rf)
    if rung == "tracepoint" and procs.get(child, {}).get("faults", 0) < 64:
        errs.append("child process total below 64")
    # Per-process totals agree with the stacks.
    for p, o in procs.items():
        total = sum(s["faults"] for s in stacks if s["pid"] == p)
        if total != o["faults"]:
            errs.append("pid %d: process total %d != sum of stacks %d" % (p, o["faults"], total))
    if errs:
        sys.exit("; ".join(errs))


def cow_check(stacks, child):
    """The forked child's 64 copy-on-write writes: 64 faults at child_write's
    store.  The child has none of the parent's page-table entries for the
    executable's text (fork copies them only for a mapping with anonymous
    pages), and fault-around maps the code pages around its first text fault
    only when it can lock them: on a busy host the page holding child_write
    is sometimes not among them, and its first instruction there faults once
    more, from another offset.  So: the store's count is exact, and any other
    child_write frame is one instruction fetch, a fault at most per page."""
    cw = {}
    for s in stacks:
        top = s["stack"][0]["sym"] if s.get("stack") else ""
        if top.startswith("child_write+"):
            cw[top] = cw.get(top, 0) + s["faults"]
    if not cw:
        return "child_write (copy-on-write in pid %d): no faults" % child
    store = max(cw, key=cw.get)
    if cw[store] != 64:
        return "child_write (copy-on-write in pid %d): %d faults at %s, want 64" % (child, cw[store], store)
    fetch = {k: v for k, v in cw.items() if k != store and v != 1}
    if fetch:
        return "child_write (pid %d): more than one fault at %s besides the store %s" % (child, fetch, store)
    return None


def by_alloc(path, out, rung):
    sites, resident, truth, addrs, inalloc = {}, {}, {}, {}, {}
    for l in open(out):
        l = l.strip()
        m = re.match(r"site fn=(\w+) kind=(\w+) bytes=(\d+) touched_pages=(\d+)$", l)
        if m: sites[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)))
        m = re.match(r"resident fn=(\w+) before_touch=(\d+)$", l)
        if m: resident[m.group(1)] = int(m.group(2))
        m = re.match(r"addr fn=(\w+) start=(0x[0-9a-f]+) end=(0x[0-9a-f]+)$", l)
        if m: addrs.setdefault(m.group(1), []).append((int(m.group(2), 16), int(m.group(3), 16)))
        m = re.match(r"inalloc fn=(\w+) faults=(\d+)$", l)
        if m: inalloc[m.group(1)] = int(m.group(2))
        m = re.match(r"(\w+)=(\S+)$", l)
        if m: truth[m.group(1)] = m.group(2)
    pid, child = int(truth["pid"]), int(truth["child_pid"])
    got, regions, summary = {}, [], None
    for l in open(path):
        if not l.startswith("{"): continue
        o = json.loads(l)
        if o["type"] == "site":
            fn = o["stack"][0]["sym"].split("+")[0] if o["stack"] else "?"
            if fn == "mmap" and len(o["stack"]) > 1:   # libc's mmap wrapper: its caller
                fn = o["stack"][1]["sym"].split("+")[0]
            got[(o["pid"], fn)] = o
        elif o["type"] == "region":
            regions.append(o)
        elif o["type"] == "by_alloc_summary":
            summary = o
        elif o["type"] == "summary" and o["lost"]:
            sys.exit("lost %d events" % o["lost"])
    def pages(ranges):
        return {p for s, e in ranges for p in range(s >> 12, ((e - 1) >> 12) + 1)}
    classes = {"small": "small", "heap": "heap", "mmap": "mmap", "zeroed": "mmap,zeroed", "anon": "anon"}
    errs, seen = [], set()
    order = ["alloc_small", "alloc_heap", "alloc_big", "alloc_zeroed", "map_anon", "map_file", "fork_buffer"]
    for fn in order:
        kind, nbytes, touched = sites[fn]
        mine = pages(addrs[fn])
        if kind == "file":
            seen |= mine
            continue
        # Touched pages of this site no earlier site's blocks share.
        touched_own = touched - len(mine & seen)
        seen |= mine
        o = got.get((pid, fn))
        if not o:
            errs.append("%s: no site" % fn); continue
        # The faults inside the allocator call are the kernel's count over
        # that call (fault-target's getrusage window); the first window
        # also holds the tracer's fault on the uprobes page, when one is:
        # one per process image (its [uprobes] page), the summary's count
        # being all images' (a -c command that execs fault-target took its
        # own before the exec, exec-image.sh).
        tracer = 1 if summary and summary["tracer"] else 0
        in_alloc = inalloc[fn] - (tracer if fn == "alloc_small" else 0)
        want = {"faults": touched_own, "toucher": touched - resident[fn], "bytes": nbytes,
                "class": classes[kind], "allocations": len(addrs[fn]), "major": 0,
                "in_allocator": in_alloc}
        have = {"faults": o["faults"], "toucher": o["faults"] - o["in_allocator"], "bytes": o["bytes"],
                "class": o["class"], "allocations": o["allocations"], "major": o["major"],
                "in_allocator": o["in_allocator"]}
        if rung == "tracepoint":
            want["first_touch"], have["first_touch"] = touched_own, o["first_touch"]
            want["cow"], have["cow"] = 0, o["cow"]
        elif "first_touch" in o:
            errs.append("%s: fault kinds on the software rung" % fn)
        if want != have:
            errs.append("%s: %s, want %s" % (fn, have, want))
    c = got.get((child, "fork_buffer"))
    want = {"faults": 64, "pages": 64, "allocations": 0, "class": "mmap"}
    have = {k: c[k] for k in want} if c else None
    if rung == "tracepoint" and c:
        want["cow"], have["cow"] = 64, c["cow"]
    if have != want:
        errs.append("child fork_buffer copy-on-write: %s, want %s" % (have, want))
    f = [r for r in regions if r["pid"] == pid and r["region"] == "file" and r["path"] == truth["file"]]
    if not f or f[0]["major"] < 1:
        errs.append("the read file's region: %s" % f)
    if not summary or summary["faults"] != summary["to_allocations"] + summary["to_regions"] or summary["waiting"]:
        errs.append("summary: %s" % summary)
    elif summary["to_allocations"] != sum(o["faults"] for o in got.values()):
        errs.append("sites' faults do not add up to the summary's: %s" % summary)
    elif summary["to_regions"] != sum(r["faults"] for r in regions):
        errs.append("regions' faults do not add up to the summary's: %s" % summary)
    if errs:
        sys.exit("; ".join(errs))


def child_only(path, child):
    child = int(child)
    st = [json.loads(l) for l in open(path) if l.startswith('{"type":"stack"')]
    pids = {o["pid"] for o in st}
    if pids != {child}:
        sys.exit("pids %s, want only %d" % (sorted(pids), child))
    err = cow_check(st, child)
    if err:
        sys.exit(err)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "child":
        child_only(*sys.argv[2:4])
    elif len(sys.argv) != 5 or sys.argv[1] not in ("stacks", "by-alloc"):
        sys.exit(__doc__)
    else:
        (stacks if sys.argv[1] == "stacks" else by_alloc)(*sys.argv[2:5])
