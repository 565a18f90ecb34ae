#!/usr/bin/env python3
"""foreign.py IN OUT KEEP...: copy recording IN to OUT as a host with other
binaries would see it: the build-id of every mapping whose path is not
one of KEEP is inverted (each byte XOR 0xff), so that no file on this host, live
or under /usr/lib/debug, matches it and the report cannot symbolize those
frames (the libc, the dynamic loader, the vdso).  Only MMAP records
(docs/record-format.md) change; their lengths do not."""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
keep = {a.encode() for a in sys.argv[3:]}
data = bytearray(open(src, "rb").read())
if data[:8] != b"FAULTREC":
    sys.exit("%s: not a faultline recording" % src)
off = struct.unpack_from("<I", data, 16)[0]
changed = 0
while off + 8 <= len(data):
    rtype, length = struct.unpack_from("<II", data, off)
    p = off + 8
    if rtype == 5:  # MMAP
        idlen = data[p + 60]
        plen = struct.unpack_from("<I", data, p + 61 + idlen)[0]
        path = bytes(data[p + 65 + idlen:p + 65 + idlen + plen])
        if idlen and path not in keep:
            for i in range(p + 61, p + 61 + idlen):
                data[i] ^= 0xFF
            changed += 1
    off = p + length
open(dst, "wb").write(data)
print("%s: %d mappings' build-ids inverted" % (dst, changed))
