#!/bin/bash
# tapcount.sh: the closing line of a test run, counted from prove's
# verbose log (sourced by tests/run and tests/vm/check).
#   tap_summary LOG RC   prints "N passed, N failed, N skipped" for the
#                        TAP lines in LOG, RC being the runner's status;
#                        returns 0 only when nothing failed.

tap_summary() {
	local log=$1 rc=$2 passed skipped failed
	# grep -c prints 0 and fails when nothing matches: || true keeps
	# a caller's set -e out of it.
	passed=$(grep -Ec '^ok [0-9]+' "$log" || true)
	# A whole file skipped is prove's "FILE .... skipped: WHY" line (or
	# a bare "1..0 # SKIP WHY" where no prove ran): one skip each.
	skipped=$(grep -Ec '^ok [0-9]+.*# *SKIP|^1\.\.0 # SKIP|^(\[[0-9:]+\] )?[^ ]+ \.+ skipped: ' "$log" || true)
	failed=$(grep -Ec '^not ok [0-9]+' "$log" || true)
	passed=$((passed - $(grep -Ec '^ok [0-9]+.*# *SKIP' "$log" || true)))
	# A script that died without printing "not ok" still fails the run.
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		failed=1
		echo "# a test program failed without a TAP failure line (see above)"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
}
