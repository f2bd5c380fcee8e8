#!/bin/bash
# The closing line every suite ends with ("N passed, N failed, N
# skipped", tests/lib/tapcount.sh), counted from logs as prove writes
# them: a file skipped as a whole counts, in prove's form and bare; a
# skipped test is not also a pass; a runner that failed without a TAP
# failure line is a failure.
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/tapcount.sh
. "$AISB_SRC/tests/lib/tapcount.sh"

log=$(mktemp)
at_exit "rm -f '$log'"

cat >"$log" <<'LOG'
[23:18:16] tests/package/40-deb.t ............. skipped: no package here
[23:18:16] tests/pam/75-entry.t .. 
ok 1 - one
ok 2 - two # SKIP not on this kernel
not ok 3 - three
1..3
tests/x/10-plain.t ... skipped: no prove timestamps
1..0 # SKIP the whole lane
LOG
out=$(tap_summary "$log" 1)
is "$?" 1 "a failure: the status says so"
is "$out" "1 passed, 1 failed, 4 skipped" "two prove file skips, a bare 1..0 skip and a skipped test; the skip is no pass"

printf 'ok 1 - one\nok 2 - two\n1..2\n' >"$log"
out=$(tap_summary "$log" 0)
is "$?" 0 "all passed: status 0"
is "$out" "2 passed, 0 failed, 0 skipped" "... counted"

out=$(tap_summary "$log" 2)
is "$?" 1 "a runner that failed without a TAP failure line fails"
like "$out" "2 passed, 1 failed, 0 skipped" "... and counts as one failure"

# A test's own description with "skipped: " in it is not a file skip.
printf 'ok 1 - nothing skipped: all ran\n1..1\n' >"$log"
is "$(tap_summary "$log" 0)" "1 passed, 0 failed, 0 skipped" "\"skipped: \" inside a test's description is not a skip"
done_testing
