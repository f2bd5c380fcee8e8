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
conf=$(sess_conf stall 'limits { timeout = 2 }')
conf0=$(sess_conf stall0)
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

for mode in pty pipe; do
	caller "$mode" none -- "$AISB_SHELL" --config "$conf" -c "$flood"
	is "$rc" 124 "$mode never read: limits.timeout still ends the session (124)"
	ok "$mode never read: within a second of the deadline ($ms ms)" \
	    test "$ms" -ge 1900 -a "$ms" -lt 3000
	ok "$mode never read: output was left unread (the caller stalled: $unread bytes)" \
	    test "$unread" -gt 1000
	ok "$mode never read: no process of the sandbox is left" gone

	for sig in TERM HUP; do
		caller "$mode" none "$sig@1000" -- "$AISB_SHELL" --config "$conf0" -c "$flood"
		want=$((128 + $(kill -l "$sig")))
		is "$rc" "$want" "$mode never read: SIG$sig ends the session though the inside ignores it ($want)"
		ok "$mode never read: within a second of SIG$sig ($sig_ms ms)" \
		    test "$sig_ms" -ge 0 -a "$sig_ms" -lt 1000
		ok "$mode never read, SIG$sig: output was left unread ($unread bytes)" \
		    test "$unread" -gt 1000
		ok "$mode never read, SIG$sig: no process of the sandbox is left" gone
	done

	# The twin: slow, but reading.
	caller "$mode" slow -- "$AISB_SHELL" --config "$conf0" \
	    -c 'head -c 200000 /dev/zero | tr "\0" x; echo END; exit 3'
	is "$rc" 3 "$mode read slowly: the inside's own status"
	is "$xs" 200000 "$mode read slowly: every byte arrives"
	is "$end" 1 "$mode read slowly: up to the last line"
	ok "$mode read slowly: it took a while (${ms} ms)" test "$ms" -gt 2000
done
done_testing
