#!/bin/bash
# bench/run.sh: every benchmark; QUICK=1 for a short run (CI, not judged).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for b in startup gate connrate memory concurrency; do
	[ -x "$here/$b.sh" ] || continue
	echo "== $b.sh"
	"$here/$b.sh" || rc=1
done
exit $rc
