#!/bin/bash
# Redaction of env.secret values in what the outer relays to the caller
# (shell/redact.c, shell/pty.c): a secret printed inside reaches the
# caller as "[aisb: redacted NAME]" over a pipe (stdout and stderr, which
# then come through the outer) and over a pty; a value split over two
# writes is still caught, also on a pty and inside escape sequences
# (redaction comes before the escape filter); binary data passes byte
# for byte except the
# secret's bytes; a session without secrets keeps the caller's own
# descriptors (no pipe in between).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx9
sdir=$SESS_TOP/secrets-tsbx9
install -d -m 0755 "$sdir"
at_exit "rm -rf '$sdir'"
secret="sbx-redact-$$-$RANDOM-value"
printf '%s\n' "$secret" > "$sdir/tok"
chown root:tsbx9 "$sdir/tok"; chmod 0640 "$sdir/tok"
conf=$(sess_conf red "env { secret SBX_TOKEN { file = \"$sdir/tok\" } }")
plain=$(sess_conf plain)
proj=$SESS_TOP/tsbx9/project

# The witness: inside, the variable holds the value (compared by hash).
want=$(printf %s "$secret" | sha256sum)
is "$(sess tsbx9 "$conf" -c 'printf %s "$SBX_TOKEN" | sha256sum')" "$want" \
    "inside, the variable holds the value (its hash, as printed)"

# --- over a pipe
out=$(sess tsbx9 "$conf" -c 'echo "key=$SBX_TOKEN."' 2>/dev/null)
is "$out" "key=[aisb: redacted SBX_TOKEN]." "stdout over a pipe: the value becomes the marker"
out=$(sess tsbx9 "$conf" -c 'echo "err=$SBX_TOKEN" >&2' 2>&1 >/dev/null)
is "$out" "err=[aisb: redacted SBX_TOKEN]" "stderr too, and it stays stderr"
out=$(sess tsbx9 "$conf" -c 'h=${#SBX_TOKEN}; h=$((h / 2));
	printf %s "${SBX_TOKEN:0:$h}"; sleep 0.01; printf "%s\n" "${SBX_TOKEN:$h}"' 2>/dev/null)
is "$out" "[aisb: redacted SBX_TOKEN]" "a value split over two writes is still caught"
sess tsbx9 "$plain" -c 'readlink /proc/self/fd/1' > "$proj/fd1.out" 2>&1
like "$(cat "$proj/fd1.out")" "fd1.out" "witness: without secrets the inner writes to the caller's own file"
sess tsbx9 "$conf" -c 'readlink /proc/self/fd/1' > "$proj/fd1.out" 2>/dev/null
like "$(cat "$proj/fd1.out")" "^pipe:" "with secrets its stdout is the outer's pipe"

# --- binary data: byte for byte, but for the value
head -c 10000000 /dev/urandom > "$proj/rand"
chown tsbx9 "$proj/rand"
got=$(sess tsbx9 "$conf" -c 'cat rand' 2>/dev/null | sha256sum)
is "$got" "$(sha256sum < "$proj/rand")" "10 MB of random bytes come out byte for byte"
python3 - "$proj/rand" "$proj/rand2" "$secret" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
s = sys.argv[3].encode()
d[5000000:5000000] = s
open(sys.argv[2], "wb").write(d)
PY
chown tsbx9 "$proj/rand2"
sess tsbx9 "$conf" -c 'cat rand2' 2>/dev/null > "$proj/rand2.out"
python3 - "$proj/rand" "$proj/rand2.out" <<'PY' > "$proj/cmp.out"
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
m = b"[aisb: redacted SBX_TOKEN]"
print("ok" if b == a[:5000000] + m + a[5000000:] else "differ %d %d" % (len(a), len(b)))
PY
is "$(cat "$proj/cmp.out")" "ok" "with the value inside: only its bytes change"

# --- over a pty
if command -v script >/dev/null; then
	out=$(as tsbx9 script -qec "$AISB_SHELL --config $conf -c 'echo \"tty=\$SBX_TOKEN\"; tty'" /dev/null 2>&1 </dev/null)
	like "$out" "tty=\[aisb: redacted SBX_TOKEN\]" "over a pty: the value becomes the marker"
	like "$out" "/dev/pts/" "witness: it ran on a pty"
	unlike "$out" "$secret" "... and the value never shows"
	# Before the escape filter: a value split over two writes, and
	# values inside escape sequences (a title, which the filter passes;
	# OSC 52 and a DCS string, which it drops) never reach the caller,
	# with the filter off as well.
	cat > "$proj/esc.sh" <<'SH'
h=${#SBX_TOKEN}; h=$((h / 2))
printf 'split=%s' "${SBX_TOKEN:0:$h}"; sleep 0.01; printf '%s\n' "${SBX_TOKEN:$h}"
printf '\033]0;title=%s\007' "$SBX_TOKEN"
printf '\033]52;c;%s\007' "$(printf %s "$SBX_TOKEN" | base64 -w0)"
printf '\033]52;c;%s\007' "$SBX_TOKEN"
printf '\033P%s\033\\' "$SBX_TOKEN"
printf '\033[1mbold=%s\033[0m\n' "$SBX_TOKEN"
echo done
SH
	chown tsbx9 "$proj/esc.sh"
	nofilter=$(sess_conf red-nofilter "env { secret SBX_TOKEN { file = \"$sdir/tok\" } }
terminal { filter = false }")
	for c in "$conf" "$nofilter"; do
		[ "$c" = "$conf" ] && what="filter on" || what="filter off"
		as tsbx9 script -qec "$AISB_SHELL --config $c -c 'bash esc.sh'" /dev/null \
			> "$proj/esc.out" 2>&1 </dev/null
		like "$(cat "$proj/esc.out")" "done" "$what: witness: the script ran to its end"
		ok "$what: the value is in none of its escape sequences or lines" \
			python3 -c 'import sys; sys.exit(sys.argv[2].encode() in open(sys.argv[1], "rb").read())' \
			"$proj/esc.out" "$secret"
		like "$(cat "$proj/esc.out")" "split=\[aisb: redacted SBX_TOKEN\]" \
			"$what: a value split over two writes on a pty is caught"
		like "$(cat "$proj/esc.out")" "bold=\[aisb: redacted SBX_TOKEN\]" \
			"$what: ... and one between colour sequences"
	done
	like "$(cat "$proj/esc.out")" $'\e\\]0;title=\\[aisb: redacted SBX_TOKEN\\]' \
		"filter off: the title arrives with the marker in it"
	like "$(cat "$proj/esc.out")" $'\e\\]52;c;\\[aisb: redacted SBX_TOKEN\\]' \
		"filter off: so does the clipboard write (the filter would drop it)"
else
	for _ in $(seq 12); do skip "over a pty" "script(1) missing"; done
fi

rm -f "$proj/rand" "$proj/rand2" "$proj/rand2.out" "$proj/cmp.out" "$proj/fd1.out" \
	"$proj/esc.sh" "$proj/esc.out" "$proj/stall.out"
done_testing
