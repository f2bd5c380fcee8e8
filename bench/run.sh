#!/bin/bash
# bench/run.sh: every benchmark; QUICK=1 for a short run (CI, not judged).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=0
# The context the figures belong to: they are only comparable within a run.
echo "aisb bench $(date -u '+%F %T') UTC${QUICK:+ (QUICK: small, times not judged)}"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
for b in startup gate tls redact connrate memory concurrency; do
	[ -x "$here/$b.sh" ] || continue
	echo "== $b.sh"
	"$here/$b.sh" || rc=1
done
exit $rc
