#!/usr/bin/env python3
"""exec-check: a process that exec'd under faultline, against exec-target's
account of what it did before the exec (its "pre ..." lines) and the
exec'd program's own; the checks of exec-image.sh, live and from a
recording.

usage: exec-check.py faults JSONFILE TARGETOUT
       exec-check.py leak JSONFILE TARGETOUT ALONEJSON
       exec-check.py heap JSONFILE TARGETOUT ALONEJSON
  faults  faults --by-alloc --json of `setarch -R exec-target fault-target`
          (fault-target's own sites are faults-check.py's): exec-target's
          two sites, named in its image (pre_small and pre_big, before_exec
          and main below, no frame unnamed), under its comm and pid, with
          exactly its blocks and bytes; pre_big's PRE_TOUCH faults, one in
          malloc; pre_small's faults all inside malloc (nothing touches its
          blocks after); so no fault of fault-target's, whose first blocks
          share pages with exec-target's (checked: else this proves
          nothing), went to them.  Every site is setarch's, exec-target's
          or fault-target's, and its frames are of its own program.
  leak    leak --json of `setarch -R exec-target leak-target leaks`: every
          stack leak-target's (comm, and no frame of exec-target's), and
          the totals those of leak-target alone (ALONEJSON: leak --json of
          `setarch -R leak-target leaks`) to the byte; exactly exec-target's
          blocks more dropped at exec than alone.
  heap    heap --json of the same: exec-target's sites, named, with their
          calls and 0 bytes leaked; leaked bytes and blocks those of
          leak-target alone (ALONEJSON: heap --json of it), and exactly
          exec-target's calls more.
All: no frame "[unknown]" without a module (a frame named in maps it was
not taken in, the symptom of an exec not followed), and no lost event.
Exits non-zero with the differences on stderr.
"""
import json, re, sys


def objects(path):
    out = []
    for l in open(path):
        if l.startswith("{"):
            o = json.loads(l)
            if o.get("type") == "summary" and o.get("lost"):
                sys.exit("%s: lost %d events" % (path, o["lost"]))
            out.append(o)
    return out


def names(o):
    return [f["sym"].split("+")[0].split(" ")[0] for f in o.get("stack", [])]


def bare_unknown(objs):
    """Frames that no mapping holds: named in the wrong image."""
    return [(o.get("comm"), o.get("function"), f["addr"]) for o in objs
            for f in o.get("stack", []) if f["sym"] == "[unknown]"]


def pre_truth(out):
    t = {"sites": {}, "addrs": {}}
    for l in open(out):
        l = l.strip()
        m = re.match(r"pre site fn=(\w+) bytes=(\d+) count=(\d+)$", l)
        if m: t["sites"][m.group(1)] = (int(m.group(2)), int(m.group(3)))
        m = re.match(r"pre faults fn=(\w+) pages=(\d+)$", l)
        if m: t["touched"] = int(m.group(2))
        m = re.match(r"pre addr fn=(\w+) start=(0x[0-9a-f]+) end=(0x[0-9a-f]+)$", l)
        if m: t["addrs"].setdefault(m.group(1), []).append((int(m.group(2), 16), int(m.group(3), 16)))
        m = re.match(r"pre pid=(\d+)$", l)
        if m: t["pid"] = int(m.group(1))
        m = re.match(r"addr fn=(\w+) start=(0x[0-9a-f]+) end=(0x[0-9a-f]+)$", l)
        if m: t.setdefault("post", []).append((int(m.group(2), 16), int(m.group(3), 16)))
    return t


def pages(ranges):
    return {p for s, e in ranges for p in range(s >> 12, ((e - 1) >> 12) + 1)}


def faults(path, out):
    t, errs = pre_truth(out), []
    objs = objects(path)
    sites = [o for o in objs if o["type"] == "site"]
    pre = {}
    for o in sites:
        n = names(o)
        if o["comm"] == "exec-target":
            pre[n[0] if n else "?"] = o
            if o["pid"] != t["pid"]:
                errs.append("%s: pid %d, want %d" % (n[0], o["pid"], t["pid"]))
            if n[1:3] != ["before_exec", "main"] or any(x.startswith("[unknown]") for x in n):
                errs.append("exec-target site not named in its image: %s" % n)
        elif o["comm"] == "fault-target":
            if {"pre_small", "pre_big", "before_exec"} & set(n):
                errs.append("a fault-target site with exec-target's frames: %s" % n)
        elif o["comm"] != "setarch":
            errs.append("a site of %s: %s" % (o["comm"], n))
    for fn, (nbytes, count) in t["sites"].items():
        o = pre.get(fn)
        if not o:
            errs.append("%s: no site" % fn)
            continue
        if (o["bytes"], o["allocations"]) != (nbytes, count):
            errs.append("%s: %d bytes in %d, want %d in %d" % (fn, o["bytes"], o["allocations"], nbytes, count))
    b, s = pre.get("pre_big"), pre.get("pre_small")
    if b and (b["faults"], b["pages"], b["in_allocator"]) != (t["touched"], t["touched"], 1):
        errs.append("pre_big: %d faults on %d pages, %d in malloc; want %d, %d, 1" %
                    (b["faults"], b["pages"], b["in_allocator"], t["touched"], t["touched"]))
    if s and s["faults"] != s["in_allocator"]:
        errs.append("pre_small: %d faults, only %d in malloc: the rest are another image's" %
                    (s["faults"], s["in_allocator"]))
    if set(pre) - set(t["sites"]):
        errs.append("exec-target sites beyond its truth: %s" % sorted(pre))
    if not pages(t["addrs"].get("pre_small", [])) & pages(t.get("post", [])):
        errs.append("no block of fault-target's shares a page with pre_small's: the run "
                    "does not tell whether faults stay in their image")
    if bare_unknown(sites):
        errs.append("frames in no mapping: %s" % bare_unknown(sites)[:5])
    if errs:
        sys.exit("; ".join(errs))


def leak_summary(path):
    s = [o for o in objects(path) if o["type"] == "leak_summary"]
    if not s:
        sys.exit("%s: no leak_summary" % path)
    return s[-1]


def pre_blocks(out):
    return sum(count for _, count in pre_truth(out)["sites"].values())


def leak(path, out, alone):
    errs, objs, pre = [], objects(path), pre_blocks(out)
    for o in objs:
        if o["type"] != "stack":
            continue
        n = names(o)
        if o["comm"] != "leak-target" or {"pre_small", "pre_big", "before_exec"} & set(n):
            errs.append("a stack of %s outstanding after its exec: %s" % (o["comm"], n))
    got, want = leak_summary(path), leak_summary(alone)
    for k in ("outstanding_bytes", "outstanding_allocations", "stacks"):
        if got[k] != want[k]:
            errs.append("%s %s, %s for leak-target alone" % (k, got[k], want[k]))
    if got["kinds"]["malloc"] != want["kinds"]["malloc"] | {"traced_allocs": got["kinds"]["malloc"]["traced_allocs"]}:
        errs.append("malloc family %s, alone %s" % (got["kinds"]["malloc"], want["kinds"]["malloc"]))
    if got["dropped_at_exec"] - want["dropped_at_exec"] != pre:
        errs.append("%d dropped at exec, %d alone: want exec-target's %d more" %
                    (got["dropped_at_exec"], want["dropped_at_exec"], pre))
    if bare_unknown(objs):
        errs.append("frames in no mapping: %s" % bare_unknown(objs)[:5])
    if errs:
        sys.exit("; ".join(errs))


def heap(path, out, alone):
    errs, objs, pre = [], objects(path), pre_blocks(out)
    stacks = [o for o in objs if o["type"] == "heap_stack"]
    want = {fn: count for fn, (_, count) in pre_truth(out)["sites"].items()}
    seen = {}
    for o in stacks:
        n = names(o)
        if o["function"] in want:
            seen[o["function"]] = o
            if n[:3] != [o["function"], "before_exec", "main"]:
                errs.append("%s not named in its image: %s" % (o["function"], n))
            if (o["calls"], o["leaked_bytes"]) != (want[o["function"]], 0):
                errs.append("%s: %d calls, %d bytes leaked; want %d and 0 (the exec freed it)" %
                            (o["function"], o["calls"], o["leaked_bytes"], want[o["function"]]))
    if "pre_small" not in seen:
        errs.append("no heap_stack of pre_small (the most calls section has room for it)")
    s = [o for o in objs if o["type"] == "heap_summary"][-1]
    a = [o for o in objects(alone) if o["type"] == "heap_summary"][-1]
    if (s["leaked_bytes"], s["leaked_blocks"]) != (a["leaked_bytes"], a["leaked_blocks"]):
        errs.append("%d bytes leaked in %d blocks, leak-target alone %d in %d" %
                    (s["leaked_bytes"], s["leaked_blocks"], a["leaked_bytes"], a["leaked_blocks"]))
    if s["calls"] - a["calls"] != pre:
        errs.append("%d calls, leak-target alone %d: want exec-target's %d more" % (s["calls"], a["calls"], pre))
    if bare_unknown(stacks):
        errs.append("frames in no mapping: %s" % bare_unknown(stacks)[:5])
    if errs:
        sys.exit("; ".join(errs))


if __name__ == "__main__":
    n = {"faults": 4, "leak": 5, "heap": 5}
    if len(sys.argv) < 2 or n.get(sys.argv[1]) != len(sys.argv):
        sys.exit(__doc__)
    {"faults": faults, "leak": leak, "heap": heap}[sys.argv[1]](*sys.argv[2:])
