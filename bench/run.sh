#!/bin/bash
# bench/run.sh: every benchmark; QUICK=1 for a short run (CI, not judged).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for b in "$here"/startup.sh; do
	echo "== $(basename "$b")"
	"$b" || rc=1
done
exit $rc
