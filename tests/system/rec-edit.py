#!/usr/bin/env python3
"""rec-edit.py IN OUT OP N: copy recording IN to OUT with its N-th SAMPLE
record (from 1) changed as OP says (docs/record-format.md has the layout):
  time VALUE  its time set to VALUE (ns; e.g. 72057594037927936 = 2^56)
  drop        removed
rec-edit.py IN cut OFFSET: print the bytes of the record that OFFSET cuts
(OFFSET - the start of the record holding it; 0 at a record boundary).
rec-edit.py IN OUT pauses N: OUT with its END's pause count set to N (its
time paused kept: 0 makes the field corrupt).
rec-edit.py IN OUT v1.1 0: OUT as a 1.1 faultline wrote it, its END without
the pause fields (the last 16 bytes of a 1.2 END)."""
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
if data[:8] != b"FAULTREC":
    sys.exit("%s: not a faultline recording" % sys.argv[1])
off = struct.unpack_from("<I", data, 16)[0]
if sys.argv[2] == "cut":
    cut = int(sys.argv[3])
    while off + 8 <= len(data) and off + 8 + struct.unpack_from("<I", data, off + 4)[0] <= cut:
        off += 8 + struct.unpack_from("<I", data, off + 4)[0]
    print(cut - off if cut >= off else 0)
    sys.exit(0)
dst, op, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
if op in ("pauses", "v1.1"):
    if struct.unpack_from("<H", data, 10)[0] != 2:
        sys.exit("rec-edit.py: %s is not a format 1.2 recording" % sys.argv[1])
    while off + 8 <= len(data):
        rtype, length = struct.unpack_from("<II", data, off)
        if rtype == 11:  # END: its pauses and paused_ns are its last 16 bytes
            end = off + 8 + length
            if op == "pauses":
                struct.pack_into("<Q", data, end - 16, n)
            else:
                del data[end - 16:end]
                struct.pack_into("<I", data, off + 4, length - 16)
                struct.pack_into("<H", data, 10, 1)
            open(dst, "wb").write(data)
            sys.exit(0)
        off += 8 + length
    sys.exit("rec-edit.py: %s has no end record" % sys.argv[1])
k = 0
while off + 8 <= len(data):
    rtype, length = struct.unpack_from("<II", data, off)
    if rtype == 9:  # SAMPLE
        k += 1
        if k == n:
            if op == "time":
                struct.pack_into("<Q", data, off + 8 + 16, int(sys.argv[5]))
            elif op == "drop":
                del data[off:off + 8 + length]
            else:
                sys.exit("rec-edit.py: unknown operation '%s'" % op)
            break
    off += 8 + length
if k < n:
    sys.exit("rec-edit.py: %s has %d samples, not %d" % (sys.argv[1], k, n))
open(dst, "wb").write(data)
