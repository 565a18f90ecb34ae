#!/usr/bin/env python3
"""pprof-check: what `go tool pprof` reads from faultline's profiles, against
the targets' truth and faultline's own JSON reports (tests/system/pprof.sh).

usage: pprof-check.py heap DIR     DIR holds {alloc_objects,alloc_space,
                                   inuse_objects,inuse_space}.{top,traces},
                                   heap.json (report heap --json -l) and
                                   leak.truth (leak-target leaks' output)
       pprof-check.py faults DIR   DIR holds faults.top, faults.traces,
                                   faults.json (report faults --json) and
                                   faults.truth (fault-target's output)
       pprof-check.py sites DIR    DIR holds inuse_space.top and
                                   faults.truth: each malloc-family site of
                                   fault-target holds its bytes
-top is read as flat values by function and its "Total samples"; -traces as
stacks of function names, leaf first, the inlined frames left out (the
JSON reports do not show them), summed over the samples of equal stacks.
Exits non-zero with the differences on stderr.
"""
import importlib.util, json, os, re, sys

_spec = importlib.util.spec_from_file_location(
    "faults_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "faults-check.py"))
faults_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(faults_check)


def top(path):
    """-top: ({function: flat}, total, [functions in the order shown])."""
    flat, order, total = {}, [], None
    for l in open(path):
        m = re.match(r"Duration: .*Total samples = (\d+)B? *$", l.strip())
        if m:
            total = int(m.group(1))
        m = re.match(r"\s*(\d+)B?\s+\S+%\s+\S+%\s+(\d+)B?\s+\S+%\s+(.+)$", l)
        if m:
            flat[m.group(3)] = int(m.group(1))
            order.append(m.group(3))
    return flat, total, order


def traces(path):
    """-traces: {(functions, leaf first): value}, zero values left out."""
    out = {}
    for block in open(path).read().split("-----------+")[1:]:
        lines = [x for x in block.splitlines()[1:]
                 if x.strip() and not x.strip().startswith("pid:")]
        m = re.match(r"\s+(\d+)B?\s{3}(\S.*)$", lines[0]) if lines else None
        if not m:
            continue
        k = tuple(unnamed(f) for f in [m.group(2)] + [x.strip() for x in lines[1:]]
                  if not f.endswith(" (inline)"))
        out[k] = out.get(k, 0) + int(m.group(1))
    return {k: v for k, v in out.items() if v}


def unnamed(frame):
    """An unnamed frame as one word: pprof names it by its mapping's file
    ("[libc.so.6]", "[[vdso]]", "[[uprobes]]"), the JSON reports by the
    module the symbolizer found ("[unknown] [libc.so.6]", "[unknown]" for
    the uretprobe trampoline's page)."""
    return "(unnamed)" if re.match(r"^(?:\[unknown\] )?\[+[^\[\]]*\]+$", frame) else frame


def json_stack(o):
    """A JSON report's stack as pprof names its frames."""
    return tuple(unnamed(f["sym"].split("+")[0] if "+0x" in f["sym"] else f["sym"])
                 for f in o["stack"])


def compare(what, got, want, errs):
    diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    print("%s: pprof %d stacks, faultline %d, differing %d" % (what, len(got), len(want), len(diff)))
    for k in diff[:10]:
        errs.append("%s stack %s: pprof %s, faultline %s" %
                    (what, " <- ".join(k), got.get(k), want.get(k)))


def eq(what, got, want, errs):
    print("%s: %s (want %s)" % (what, got, want))
    if got != want:
        errs.append("%s: %s, want %s" % (what, got, want))


def heap(d, errs):
    summ, stacks = None, {"calls": {}, "leaked": {}}
    for l in open(d + "/heap.json"):
        if not l.startswith("{"):
            continue
        o = json.loads(l)
        if o["type"] == "heap_summary":
            summ = o
        elif o["type"] == "heap_stack" and o["section"] in stacks:
            v = o["calls"] if o["section"] == "calls" else o["leaked_bytes"]
            k = json_stack(o)
            if v:
                stacks[o["section"]][k] = stacks[o["section"]].get(k, 0) + v
    if not summ:
        sys.exit("no heap_summary in report heap --json")
    truth = {}
    for l in open(d + "/leak.truth"):
        m = re.match(r"site fn=(\w+) bytes=(\d+) count=(\d+)$", l.strip())
        if m:
            truth[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if not truth:
        sys.exit("no site lines in leak-target's output")
    ao, ao_total, ao_order = top(d + "/alloc_objects.top")
    asp, as_total, _ = top(d + "/alloc_space.top")
    io, io_total, _ = top(d + "/inuse_objects.top")
    isp, is_total, is_order = top(d + "/inuse_space.top")
    eq("alloc_objects total = report heap's calls", ao_total, summ["calls"], errs)
    eq("inuse_space total = report heap's leaked bytes", is_total, summ["leaked_bytes"], errs)
    eq("inuse_objects total = report heap's leaked blocks", io_total, summ["leaked_blocks"], errs)
    eq("alloc_space total = its functions' sum", as_total, sum(asp.values()), errs)
    for fn, (b, c) in sorted(truth.items()):
        eq("%s inuse_space" % fn, isp.get(fn, 0), b, errs)
        eq("%s inuse_objects" % fn, io.get(fn, 0), c, errs)
    eq("temp_alloc alloc_objects", ao.get("temp_alloc"), 1000, errs)
    eq("temp_alloc alloc_space", asp.get("temp_alloc"), 500500, errs)
    eq("temp_alloc inuse_space", isp.get("temp_alloc", 0), 0, errs)
    eq("leak_malloc_small alloc_space", asp.get("leak_malloc_small"), 280, errs)
    eq("produce_blocks alloc_objects", ao.get("produce_blocks"), 10, errs)
    eq("produce_blocks alloc_space", asp.get("produce_blocks"), 2000, errs)
    eq("produce_blocks inuse_space", isp.get("produce_blocks", 0), 0, errs)
    eq("inuse_space's first function", is_order[:1], ["leak_big"], errs)
    eq("alloc_objects' first function", ao_order[:1], ["temp_alloc"], errs)
    compare("alloc_objects / report heap's calls", traces(d + "/alloc_objects.traces"),
            stacks["calls"], errs)
    compare("inuse_space / report heap's leaked bytes", traces(d + "/inuse_space.traces"),
            stacks["leaked"], errs)


def faults(d, errs):
    flat, total, _ = top(d + "/faults.top")
    touched, resident = {}, {}
    for l in open(d + "/faults.truth"):
        l = l.strip()
        m = re.match(r"site fn=(\w+) kind=\w+ bytes=\d+ touched_pages=(\d+)$", l)
        if m:
            touched[m.group(1)] = int(m.group(2))
        m = re.match(r"resident fn=(\w+) before_touch=(\d+)$", l)
        if m:
            resident[m.group(1)] = int(m.group(2))
    toucher = {"alloc_small": "touch_small", "alloc_heap": "touch_heap",
               "alloc_big": "touch_big", "alloc_zeroed": "touch_zeroed",
               "map_anon": "touch_anon", "fork_buffer": "touch_fork"}
    for site, fn in sorted(toucher.items()):
        eq("%s faults (touched - resident)" % fn, flat.get(fn, 0),
           touched[site] - resident[site], errs)
    child = None
    for l in open(d + "/faults.truth"):
        if l.startswith("child_pid="):
            child = int(l.split("=", 1)[1])
    procs, stacks, child_stacks = 0, {}, []
    for l in open(d + "/faults.json"):
        if l.startswith("{"):
            o = json.loads(l)
            if o["type"] == "process":
                procs += o["faults"]
            elif o["type"] == "stack":
                k = json_stack(o)
                stacks[k] = stacks.get(k, 0) + o["faults"]
                if o["pid"] == child:
                    child_stacks.append(o)
    # The child's copy-on-write faults: 64 at child_write's store exactly,
    # and at most one instruction fetch elsewhere in child_write (its page
    # refaulted after fork when fault-around could not lock it:
    # faults-check.py's cow_check says why); pprof's flat value for
    # child_write is the sum of the two, as report faults counts them.
    err = faults_check.cow_check(child_stacks, child) if child is not None else "no child_pid in faults.truth"
    if err:
        errs.append(err)
    cw = sum(o["faults"] for o in child_stacks
             if o["stack"] and o["stack"][0]["sym"].startswith("child_write+"))
    eq("child_write faults (copy-on-write, pprof = report faults)", flat.get("child_write"), cw, errs)
    eq("total = report faults' processes", total, procs, errs)
    compare("faults / report faults", traces(d + "/faults.traces"), stacks, errs)


def sites(d, errs):
    isp, total, _ = top(d + "/inuse_space.top")
    want = 0
    for l in open(d + "/faults.truth"):
        m = re.match(r"site fn=(\w+) kind=(small|heap|mmap|zeroed) bytes=(\d+) ", l)
        if m:
            eq("%s inuse_space" % m.group(1), isp.get(m.group(1), 0), int(m.group(3)), errs)
            want += int(m.group(3))
    eq("inuse_space total (the sites' bytes; mmap and file regions are not the heap's)",
       total, want, errs)


errs = []
{"heap": heap, "faults": faults, "sites": sites}[sys.argv[1]](sys.argv[2], errs)
if errs:
    sys.exit("\n".join(errs))
