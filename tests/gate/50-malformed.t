#!/bin/bash
# Malformed input: a corpus of bad HTTP request heads (each a 400 or a
# close) and bad DNS packets (dropped or answered with an error, never
# an address); the gate keeps serving afterwards.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

emit() {	# turn "ok - x" lines into numbered TAP
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) pass "${line#ok - }" ;;
		"not ok - "*) fail "${line#not ok - }" ;;
		esac
	done
}
emit < <(gin python3 "$(dirname "$0")/malformed.py" http 3128 2>&1)
nh=$_tap_n
ok "at least 50 malformed HTTP requests ($nh)" [ "$nh" -ge 50 ]
emit < <(gin python3 "$(dirname "$0")/malformed.py" dns 2>&1)
nd=$((_tap_n - nh - 1))
ok "at least 30 malformed DNS packets ($nd)" [ "$nd" -ge 30 ]
ok "the gate is still running" gt_gate_alive
is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "and still serves a good request"
like "$(gin dig +short @127.0.0.1 origin.tgat.test)" "^198\.(18|19)\." "and still answers a good query"
done_testing
