#!/bin/bash
# Strict mode refuses a limit the host cannot enforce (no delegated
# cgroup) with 77 and one line naming the limit and the fix; best-effort
# starts, logs each limit it could not enforce to the session's record
# and puts at most one line on stderr (limits.notices); with delegation
# the same strict policy starts.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"

lim_user tlim1 || skip_all "cannot create test user"
lim_need_sessions tlim1

strict=$(lim_conf strict 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "strict"')
best=$(lim_conf best 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "best-effort"')

lim_run_plain tlim1 "$strict" 'echo ran-unlimited'
is "$LIM_RC" 77 "strict without a delegated cgroup: exit 77"
is "$LIM_OUT" "" "strict without a delegated cgroup: nothing ran"
like "$LIM_ERR" 'limits\.memory = 64M cannot be enforced: no delegated cgroup \(add pam_aisb.*limits\.enforce = "best-effort"\)' \
    "the line names the limit and the fix"
is "$(printf '%s\n' "$LIM_ERR" | grep -c 'cannot be enforced')" 1 \
    "exactly one line for the refusal"

# Best-effort: each limit in the session's record (a test receiver on
# /dev/log); stderr gets at most one line, by limits.notices: by default
# only at a terminal (a harness feeds a pipe's stderr to its model).
lim_run_plain tlim1 "$best" 'echo ran-best-effort'
is "$LIM_RC" 0 "best-effort without a delegated cgroup: starts"
is "$LIM_OUT" ran-best-effort "best-effort: the command ran"
unlike "$LIM_ERR" "not enforced" "best-effort, stderr a pipe: not a line about the limits"
read -ra lenv <<<"$(_lim_env tlim1)"
as1=(setpriv --reuid="$(id -u tlim1)" --regid="$(id -g tlim1)" --init-groups "${lenv[@]}")
slog=$LIM_DIR/syslog
(cd / && with_syslog "$slog" "${as1[@]}" "$AISB_SHELL" --config "$best" -c true) >/dev/null 2>&1
for l in 'limits\.memory = 64M' 'limits\.pids = 64' 'limits\.cpu = "100%"'; do
	like "$(cat "$slog")" "aisb-shell\\[[0-9]+\\]: session-[0-9a-f]+: $l not enforced \\(limits\\.enforce = \"best-effort\"\\): no delegated cgroup" \
	    "best-effort: the record has $l not enforced, and why"
done
# script(1): the session's stderr a terminal.
tty_run() { (cd / && script -qec "$(printf '%q ' "${as1[@]}" "$AISB_SHELL" --config "$1" -c 'echo ran-tty')" /dev/null 2>&1 </dev/null); }
out=$(tty_run "$best")
like "$out" "ran-tty" "best-effort at a terminal: the command ran"
is "$(grep -c "not enforced" <<<"$out")" 1 "best-effort at a terminal: exactly one line"
like "$out" 'aisb: not enforced on this host \(limits\.enforce = "best-effort"\): limits\.memory = 64M, limits\.pids = 64, limits\.cpu = "100%"; the system log says why' \
    "best-effort at a terminal: the line lists every limit"
always=$(lim_conf always 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "best-effort"' 'notices = "always"')
lim_run_plain tlim1 "$always" 'echo ran-always'
is "$LIM_OUT" ran-always "notices = always: the command ran"
is "$(grep -c "not enforced" <<<"$LIM_ERR")" 1 "notices = always, stderr a pipe: one line"
never=$(lim_conf never 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "best-effort"' 'notices = "never"')
out=$(tty_run "$never")
like "$out" "ran-tty" "notices = never at a terminal: the command ran"
unlike "$out" "not enforced" "notices = never at a terminal: no line"

# The legitimate twin: the same strict policy with delegation starts.
lim_run tlim1 "$strict" 'echo ran-strict'
is "$LIM_RC" 0 "strict with a delegated cgroup: starts"
is "$LIM_OUT" ran-strict "strict with a delegated cgroup: the command ran"
unlike "$LIM_ERR" 'not enforced|cannot be enforced' "no limit complaint"
is "$(lim_cgroups tlim1)" "" "no cgroup of tlim1 is left after the sessions"

done_testing
