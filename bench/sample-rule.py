#!/usr/bin/env python3
"""sample-rule.py: how well candidate address rules for `leak -s N` estimate
a program's heap, from a full recording's allocations.

Reads `faultline report -i REC script` on stdin (every malloc-family entry,
return and free, with the return's stack), pairs each return with its
entry (per thread, by stack pointer), and keeps, per stack (its first
FRAMES frames): the bytes allocated over the run and the bytes still
outstanding at its end.  Then, per rule, each block kept by the rule counts
its weight (the inverse of its chance of being kept): the estimate.  Prints
per rule the share of blocks kept (1/N is the aim), and over the stacks
holding at least MIN_SHARE of the bytes the largest and the median
relative error of the estimate, for allocated and for outstanding bytes.

usage: sample-rule.py N [FRAMES] [MIN_SHARE] < script-output
"""
import re
import statistics
import sys

N = int(sys.argv[1])
FRAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 8
MIN_SHARE = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
K = N.bit_length() - 1


def page_start(a):
    return (a & 0xfff) <= 16


def bits_rule(lo, big=0):
    def rule(a, size):
        if page_start(a) or (big and size >= big):
            return 1
        return N if ((a >> lo) & (N - 1)) == N - 1 else 0
    return rule


def hash_rule(big=0):
    def rule(a, size):
        if big and size >= big:
            return 1
        return N if (((a >> 4) * 0x9e3779b97f4a7c15 & (2**64 - 1)) >> 32) % N == 0 else 0
    return rule


RULES = [("hash (user space)", hash_rule())] + \
    [("bits %d-%d + page start" % (lo, lo + K - 1), bits_rule(lo)) for lo in (4, 5, 7, 12)] + \
    [("hash, >= %d kept" % big, hash_rule(big)) for big in (1024, 4096)] + \
    [("bits %d-%d, >= %d kept" % (lo, lo + K - 1, big), bits_rule(lo, big))
     for lo in (4, 5, 7, 12) for big in (1024, 4096)]

head = re.compile(r'^\S.*?(\d+)/(\d+)\s+\[\d+\]\s+[\d.]+: \d+ faultline_\d+:(\w+?)(?:_l\d+)?:\s+(.*)$')
kv = re.compile(r'(\w+)=(\S+)')


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)


events = []
cur = None
for line in sys.stdin:
    m = head.match(line)
    if m:
        cur = [int(m.group(2)), m.group(3), {k: v for k, v in kv.findall(m.group(4))}, []]
        events.append(cur)
        continue
    if cur and line.startswith("\t") and len(cur[3]) < FRAMES:
        cur[3].append(line.split(None, 1)[1].strip() if len(line.split(None, 1)) > 1 else "")
    elif not line.strip():
        cur = None

inflight = {}      # tid -> list of (fn, size, old, sp)
blocks = {}        # addr -> (size, stack)
alloc = {}         # stack -> [(addr, size)] every block made
for tid, name, f, stack in events:
    fn, _, kind = name.rpartition("_")
    if name.startswith(("free", "delete")) or name == "sdallocx_enter":
        p = num(f.get("ptr", "0"))
        if p and not inflight.get(tid):
            blocks.pop(p, None)
        continue
    if kind == "enter":
        size = num(f.get("size", "0")) * num(f.get("nmemb", "1"))
        lst = inflight.setdefault(tid, [])
        sp = num(f.get("sp", "0"))
        while lst and lst[-1][3] <= sp:
            lst.pop()
        lst.append((fn, size, num(f.get("ptr", "0")), sp))
        continue
    if kind == "return":
        lst = inflight.get(tid, [])
        sp = num(f.get("sp", "0"))
        while lst and lst[-1][3] < sp - 8:
            lst.pop()
        if not lst or lst[-1][3] != sp - 8:
            continue
        fn, size, old, _ = lst.pop()
        if lst:
            continue       # an inner call
        ret = num(f.get("ret", "0"))
        if fn.startswith("realloc") and old and (ret or not size):
            blocks.pop(old, None)
        if ret and fn != "posix_memalign":
            key = tuple(stack)
            blocks[ret] = (size, key)
            alloc.setdefault(key, []).append((ret, size))

outst = {}
for a, (size, key) in blocks.items():
    outst.setdefault(key, []).append((a, size))


def errors(groups, rule):
    total = sum(s for v in groups.values() for _, s in v)
    errs = []
    for key, v in groups.items():
        exact = sum(s for _, s in v)
        if not total or exact < MIN_SHARE * total:
            continue
        est = sum(rule(a, s) * s for a, s in v)
        errs.append(abs(est - exact) / exact)
    return errs


nblocks = sum(len(v) for v in alloc.values())
print("%d blocks made by %d stacks, %d outstanding; 1 in %d" %
      (nblocks, len(alloc), sum(len(v) for v in outst.values()), N))
for label, rule in RULES:
    kept = sum(1 for v in alloc.values() for a, s in v if rule(a, s))
    ea, eo = errors(alloc, rule), errors(outst, rule)
    fmt = lambda e: "%d stacks: max %5.1f%% median %5.1f%%" % (
        len(e), 100 * max(e), 100 * statistics.median(e)) if e else "no stack"
    print("  %-28s kept 1 in %6.1f | allocated, %s | outstanding, %s" %
          (label, nblocks / kept if kept else float("inf"), fmt(ea), fmt(eo)))
