#!/bin/sh
# el7-cleanup.sh (guest, RHEL 7's 3.10): the host's sigkill-cleanup.sh on
# debugfs's uprobe_events: a SIGKILLed faultline's probes stay, a new one
# warns of them, `faultline cleanup` removes exactly those.
. "$top_srcdir/tests/system/sigkill-cleanup.sh"
