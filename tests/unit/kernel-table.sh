#!/bin/sh
# README.md's and faultline(1)'s tables of the kernels faultline is tested
# on are what scripts/kernel-table makes from the committed
# docs/kernels/*.json (each kernel's `faultline features --json`), so the
# documents cannot drift from the saved output.  No root needed.
srcdir=${top_srcdir:-$(dirname "$0")/../..}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: kernel-table.sh: no python3"; exit 77; }
python3 "$srcdir/scripts/kernel-table" --check
