#!/usr/bin/env python3
"""rec-edit.py IN OUT OP N: copy recording IN to OUT with its N-th SAMPLE
record (from 1) changed as OP says (docs/record-format.md has the layout):
  time VALUE  its time set to VALUE (ns; e.g. 72057594037927936 = 2^56)
  drop        removed
rec-edit.py IN cut OFFSET: print the bytes of the record that OFFSET cuts
(OFFSET - the start of the record holding it; 0 at a record boundary)."""
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
