#!/bin/bash
# A caller that stops reading (a harness whose pipe is full, a stalled
# ssh link) cannot keep a session alive: with its terminal (a pty) or
# its pipe never read while the inside floods it, limits.timeout still
# ends the session with 124 within a second of the deadline, and
# SIGTERM or SIGHUP to the outer leave no process of the sandbox within
# a second, even when the inside ignores them.  The witness: output was
# left unread.  The twin: a caller that reads slowly gets every byte and
# the inside's own status.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck
exec </dev/null
sess_require
[ -x "$AISB_HELPERS/stall_caller" ] || skip_all "stall_caller not built"
u=tlck5
sess_user "$u"
# With an env.secret the pipe case differs: stdout and stderr then come
# through the outer, which redacts them (shell/redact.c), so it is tested
# with one as well.
sdir=$SESS_TOP/secrets-$u
install -d -m 0755 "$sdir"
at_exit "rm -rf '$sdir'"
printf 'stall-secret-%s-%s\n' "$$" "$RANDOM" > "$sdir/tok"
chown "root:$u" "$sdir/tok"
chmod 0640 "$sdir/tok"
sec="env { secret STALL_TOKEN { file = \"$sdir/tok\" } }"
flood='trap "" TERM HUP; yes "flooding the caller"'

# caller MODE READ [SIG@MS] -- CMD: sets rc, ms, sig_ms, xs, end, unread.
caller() {
	local line
	line=$(as "$u" "$AISB_HELPERS/stall_caller" "$@")
	diag "$line"
	rc=hung ms=0 sig_ms=0 xs=0 end=0 unread=0
	eval "$(printf '%s\n' "$line" | tr ' ' '\n' | grep -E '^[a-z_]+=[0-9a-z-]+$')"
}
gone() { ! pgrep -u "$u" >/dev/null; }

for kind in plain redacted; do
if [ "$kind" = plain ]; then
	conf=$(sess_conf stall 'limits { timeout = 2 }')
	conf0=$(sess_conf stall0)
else
	conf=$(sess_conf stall-r 'limits { timeout = 2 }' "$sec")
	conf0=$(sess_conf stall0-r "$sec")
fi

for mode in pty pipe; do
	[ "$kind" = redacted ] && mode_name="$mode (redacted)" || mode_name=$mode
	caller "$mode" none -- "$AISB_SHELL" --config "$conf" -c "$flood"
	is "$rc" 124 "$mode_name never read: limits.timeout still ends the session (124)"
	ok "$mode_name never read: within a second of the deadline ($ms ms)" \
	    test "$ms" -ge 1900 -a "$ms" -lt 3000
	ok "$mode_name never read: output was left unread (the caller stalled: $unread bytes)" \
	    test "$unread" -gt 1000
	ok "$mode_name never read: no process of the sandbox is left" gone

	for sig in TERM HUP; do
		caller "$mode" none "$sig@1000" -- "$AISB_SHELL" --config "$conf0" -c "$flood"
		want=$((128 + $(kill -l "$sig")))
		is "$rc" "$want" "$mode_name never read: SIG$sig ends the session though the inside ignores it ($want)"
		ok "$mode_name never read: within a second of SIG$sig ($sig_ms ms)" \
		    test "$sig_ms" -ge 0 -a "$sig_ms" -lt 1000
		ok "$mode_name never read, SIG$sig: output was left unread ($unread bytes)" \
		    test "$unread" -gt 1000
		ok "$mode_name never read, SIG$sig: no process of the sandbox is left" gone
	done

	# The twin: slow, but reading.
	caller "$mode" slow -- "$AISB_SHELL" --config "$conf0" \
	    -c 'head -c 200000 /dev/zero | tr "\0" x; echo END; exit 3'
	is "$rc" 3 "$mode_name read slowly: the inside's own status"
	is "$xs" 200000 "$mode_name read slowly: every byte arrives"
	is "$end" 1 "$mode_name read slowly: up to the last line"
	ok "$mode_name read slowly: it took a while (${ms} ms)" test "$ms" -gt 2000
done
done
done_testing
