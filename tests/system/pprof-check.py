#!/usr/bin/env python3
"""pprof-check: faultline's pprof profiles, as `go tool pprof` reads them and
as decoded here, against the targets' truth and faultline's own JSON
reports (tests/system/pprof.sh, pprof-labels.sh, goalloc.sh).

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
       pprof-check.py labels-heap PROFILE TRUTH
                                   report pprof's heap of leak-target: every
                                   sample labelled pid and comm, the
                                   target's, and no tid (the heap's sites
                                   are a process's)
       pprof-check.py labels-thread PROFILE TRUTH
                                   report pprof's faults of thread-touch:
                                   every sample labelled pid, tid, comm, the
                                   target's; each toucher's samples all of
                                   its thread's tid, their faults its pages
       pprof-check.py goalloc PROFILE TRUTH JSON
                                   goalloc --pprof of go-target: Go's
                                   alloc types, every sample labelled pid,
                                   tid, comm; each site's samples all of the
                                   sites' thread, their values the site's
                                   bytes and count; the totals goalloc
                                   --json's summary (JSON)
       pprof-check.py tags PROFILE TAGS
                                   TAGS (go tool pprof -tags of PROFILE)
                                   lists each label value with the sum of
                                   the default sample type's values of the
                                   samples that carry it, as decoded here
       pprof-check.py dump PROFILE
                                   PROFILE decoded, on stdout: "types
                                   T/U ...", "default T", each type's sum
                                   "T=N", then each sample "values |
                                   labels | stack" in sorted order (two
                                   equal profiles dump the same)
-top is read as flat values by function and its "Total samples"; -traces as
stacks of function names, leaf first, the inlined frames left out (the
JSON reports do not show them), summed over the samples of equal stacks.
A PROFILE is decoded here (gzip, then protobuf's wire format by hand:
profile.proto's fields), without go.
Exits non-zero with the differences on stderr.
"""
import gzip, importlib.util, json, os, re, sys

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
        # The labels first ("pid:  123", "comm:  name"), then the frames.
        lines = [x for x in block.splitlines()[1:]
                 if x.strip() and not re.match(r"\w+:\s", x.strip())]
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


# ---- the profile itself, decoded ----

def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """A message's fields: [(number, wire type, value)], a varint as an
    int, a length-delimited field as bytes."""
    out, i = [], 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt in (1, 5):
            n = 8 if wt == 1 else 4
            v, i = int.from_bytes(b[i:i + n], "little"), i + n
        else:
            raise ValueError("wire type %d at byte %d" % (wt, i))
        out.append((num, wt, v))
    return out


def repeated(fs, num):
    """A repeated integer field, packed or not."""
    vals = []
    for n, wt, v in fs:
        if n != num:
            continue
        if wt == 2:
            i = 0
            while i < len(v):
                x, i = varint(v, i)
                vals.append(x)
        else:
            vals.append(v)
    return vals


def one(fs, num, default=0):
    vs = [v for n, _, v in fs if n == num]
    return vs[-1] if vs else default


def int64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def decode(path):
    """The profile: {"types": [(type, unit)], "default": type, "samples":
    [{"values", "stack": [function, leaf first, inlined ones left out],
    "labels": [(key, str or None, num)]}]}; string indexes out of range
    raise."""
    msg = fields(gzip.open(path).read())
    strings = [v.decode() for n, _, v in msg if n == 6]
    if not strings or strings[0] != "":
        raise ValueError("string table does not start with \"\"")
    funcs = {}
    for n, _, v in msg:
        if n == 5:
            f = fields(v)
            funcs[one(f, 1)] = strings[one(f, 2)]
    locs = {}
    for n, _, v in msg:
        if n == 4:
            f = fields(v)
            lines = [fields(l) for k, _, l in f if k == 4]
            # The function the code is in: the last line (inlined first).
            locs[one(f, 1)] = funcs[one(lines[-1], 1)] if lines else "(unnamed)"
    types = []
    for n, _, v in msg:
        if n == 1:
            f = fields(v)
            types.append((strings[one(f, 1)], strings[one(f, 2)]))
    samples = []
    for n, _, v in msg:
        if n != 2:
            continue
        f = fields(v)
        labels = []
        for k, _, lb in f:
            if k == 3:
                lf = fields(lb)
                si = one(lf, 2)
                labels.append((strings[one(lf, 1)], strings[si] if si else None,
                               int64(one(lf, 3))))
        samples.append({"values": [int64(x) for x in repeated(f, 2)],
                        "stack": [locs[x] for x in repeated(f, 1)], "labels": labels})
    return {"types": types, "default": strings[one(msg, 14)], "samples": samples}


def truth_of(path):
    """A target's printed truth: {"sites": {fn: {key: value}}, key: value}."""
    t = {"sites": {}}
    for l in open(path):
        m = re.match(r"site fn=([\w.]+) (.*)$", l.strip())
        if m:
            t["sites"][m.group(1)] = {k: int(v) for k, v in
                                      (kv.split("=", 1) for kv in m.group(2).split())}
            continue
        m = re.match(r"(\w+)=(\S+)$", l.strip())
        if m:
            t[m.group(1)] = int(m.group(2)) if m.group(2).isdigit() else m.group(2)
    return t


def label_check(prof, truth, keys, errs):
    """Every sample has each of @keys once and no other label: pid and comm
    the target's, tid a number; the count of samples checked printed."""
    bad = 0
    for s in prof["samples"]:
        got = {}
        for k, sv, nv in s["labels"]:
            got.setdefault(k, []).append(sv if sv is not None else nv)
        why = None
        if sorted(got) != sorted(keys) or any(len(v) != 1 for v in got.values()):
            why = "label keys %s, want %s once each" % (sorted(got.items()), sorted(keys))
        elif got["pid"][0] != truth["pid"]:
            why = "pid %r, want %d" % (got["pid"][0], truth["pid"])
        elif got["comm"][0] != truth["comm"]:
            why = "comm %r, want %r" % (got["comm"][0], truth["comm"])
        elif "tid" in keys and (not isinstance(got["tid"][0], int) or got["tid"][0] <= 0):
            why = "tid %r, not a thread id" % (got["tid"][0],)
        if why:
            bad += 1
            if bad <= 5:
                errs.append("sample %s: %s" % (" <- ".join(s["stack"][:4]), why))
    print("labels %s on %d samples, %d wrong" % ("/".join(keys), len(prof["samples"]), bad))
    if not prof["samples"]:
        errs.append("no samples")


def tid_of(s):
    return next((nv for k, sv, nv in s["labels"] if k == "tid"), None)


def labels_heap(path, truth_path, errs):
    prof, truth = decode(path), truth_of(truth_path)
    truth["comm"] = "leak-target"
    label_check(prof, truth, ("pid", "comm"), errs)


def labels_thread(path, truth_path, errs):
    prof, truth = decode(path), truth_of(truth_path)
    eq("sample types", prof["types"], [("faults", "count")], errs)
    label_check(prof, truth, ("pid", "tid", "comm"), errs)
    tids = {tid_of(s) for s in prof["samples"]}
    want = {v["tid"] for v in truth["sites"].values()}
    eq("threads labelled (the main one and the toucher)", sorted(tids), sorted(want), errs)
    eq("the toucher thread is not the main one", len(want), 2, errs)
    for fn, site in sorted(truth["sites"].items()):
        mine = [s for s in prof["samples"] if s["stack"][:1] == [fn]]
        eq("%s: tids of its samples" % fn, sorted({tid_of(s) for s in mine}), [site["tid"]], errs)
        eq("%s: faults (its pages)" % fn, sum(s["values"][0] for s in mine), site["pages"], errs)


def goalloc(path, truth_path, json_path, errs):
    prof, truth = decode(path), truth_of(truth_path)
    eq("sample types", prof["types"], [("alloc_objects", "count"), ("alloc_space", "bytes")],
       errs)
    eq("default sample type", prof["default"], "alloc_space", errs)
    label_check(prof, truth, ("pid", "tid", "comm"), errs)
    for fn, site in sorted(truth["sites"].items()):
        mine = [s for s in prof["samples"] if len(s["stack"]) > 2 and s["stack"][2] == fn and
                s["stack"][0] == "runtime.mallocgc" and
                s["stack"][1] in ("runtime.makeslice", "runtime.newobject")]
        eq("%s: tids of its samples (the sites' locked thread)" % fn,
           sorted({tid_of(s) for s in mine}), [truth["tid"]], errs)
        eq("%s: alloc_objects" % fn, sum(s["values"][0] for s in mine), site["count"], errs)
        eq("%s: alloc_space" % fn, sum(s["values"][1] for s in mine), site["bytes"], errs)
    summ = None
    for l in open(json_path):
        if l.startswith("{"):
            o = json.loads(l)
            if o["type"] == "goalloc_summary":
                summ = o
    if not summ:
        errs.append("no goalloc_summary in goalloc --json")
        return
    eq("alloc_objects total = goalloc's allocations", sum(s["values"][0] for s in prof["samples"]),
       summ["allocations"], errs)
    eq("alloc_space total = goalloc's bytes", sum(s["values"][1] for s in prof["samples"]),
       summ["bytes"], errs)


def tags(path, tags_path, errs):
    """-tags (-unit=B for bytes, which pprof otherwise rounds): " KEY: Total N"
    then "  VALUE (PCT%): LABEL" lines."""
    prof = decode(path)
    names = [t for t, _ in prof["types"]]
    idx = names.index(prof["default"]) if prof["default"] in names else len(names) - 1
    want = {}
    for s in prof["samples"]:
        for k, sv, nv in s["labels"]:
            v = sv if sv is not None else str(nv)
            want.setdefault(k, {})
            want[k][v] = want[k].get(v, 0) + s["values"][idx]
    got, key = {}, None
    for l in open(tags_path):
        m = re.match(r"^ (\w+): Total ", l)
        if m:
            key = m.group(1)
            got[key] = {}
            continue
        m = re.match(r"^\s+([\d.]+)B?\s+\(\s*[\d.]+%\):\s+(\S+)$", l)
        if m and key:
            # -unit=B writes the numbers of pid and tid with a B too.
            got[key][re.sub(r"^(\d+)B$", r"\1", m.group(2))] = round(float(m.group(1)))
    eq("go tool pprof -tags, by label, = the decoded samples' sums", got, want, errs)


def dump(path, errs):
    prof = decode(path)
    print("types " + " ".join("%s/%s" % t for t in prof["types"]))
    print("default " + prof["default"])
    for i, (t, _) in enumerate(prof["types"]):
        print("%s=%d" % (t, sum(s["values"][i] for s in prof["samples"])))
    for l in sorted("%s | %s | %s" % (" ".join(map(str, s["values"])),
                                      " ".join("%s=%s" % (k, sv if sv is not None else nv)
                                               for k, sv, nv in s["labels"]),
                                      " <- ".join(s["stack"])) for s in prof["samples"]):
        print(l)
    if not prof["samples"]:
        errs.append("no samples")


errs = []
checks = {"heap": heap, "faults": faults, "sites": sites, "labels-heap": labels_heap,
          "labels-thread": labels_thread, "goalloc": goalloc, "tags": tags, "dump": dump}
checks[sys.argv[1]](*sys.argv[2:], errs)
if errs:
    sys.exit("\n".join(errs))
