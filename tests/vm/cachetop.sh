#!/bin/sh
# cachetop.sh (guest): the host's tests/system/cachetop.sh, here on 6.1's
# kprobe rung (and the /proc rung): cache-target's write, cold and warm
# phases attributed to its pid, DIRTIES, MISSES and HITS within 2% of its
# pages.  check-vm copies the host test into the guest and links no
# script(1) (busybox's lacks the options the terminal-mode part uses).
exec sh "$top_srcdir/tests/system/cachetop.sh"
