#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# What a gated session tried to reach, from inside real sessions against
# the test internet: the refusals on the session's stderr (once per name,
# through the proxy, the capture port and the DNS stub; an allowed name
# that does not resolve; never inside a line or a full-screen program on
# a terminal; network.notices = false), the session's record as
# --egress shows it (bytes, the suggested allow line, which passes
# --check-config and then works), the registry --sessions reads (a
# killed session is not live, a forged entry is not believed, nothing
# inside can see or write it) and --end.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
have_userns nobody || skip_all "no unprivileged user namespaces"
command -v python3 >/dev/null || skip_all "python3 missing"

# Names of this run only.
U=tegr1x$$
V=tegr2x$$
N=e$$
mkdir -p /srv
TOP=$(mktemp -d /srv/aisbt-egr.XXXXXX) || skip_all "cannot make a directory in /srv"
chmod 0755 "$TOP"
install -d -m 0755 -o root -g root "$TOP/conf" "$TOP/conf/users.d"
at_exit "rm -rf '$TOP'"
reg_ensure || skip_all "cannot make $REG_DIR"
for u in "$U" "$V"; do
	tu_user "$u" || skip_all "cannot create $u"
	reg_forget "$u"
	install -d -m 0755 -o "$u" -g "$u" "$TOP/$u" "$TOP/$u/project"
done
internet_up "$N" || skip_all "cannot build the test internet"

# conf NAME EXTRA-LINES...: a root-owned gated policy; prints its path.
conf() {
	local f=$TOP/conf/$1.conf
	shift
	{
		echo "project { path = \"$TOP/%u/project\"  roots = {\"$TOP/%u\"} }"
		echo 'home { path = "tmpfs" }'
		[ -n "${FS:-}" ] && echo "filesystem { $FS }"
		echo 'limits { memory = 0  pids = 0  cpu = "0%" }'
		echo 'network {'
		echo '  mode = "gated"'
		echo '  allow = {"origin.test", "api.example.test", "nx.example.test"}'
		echo '  deny = {"denied.example.test"}'
		echo "  allow_cidr = {\"$INET_ORIGIN_NET\"}"
		echo "  resolver = \"$INET_DNS\""
		printf '  %s\n' "$@"
		echo '}'
	} > "$f"
	chmod 0644 "$f"
	echo "$f"
}
C=$(conf egress)
QUIET=$(conf quiet 'notices = false')
noproxy='env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy'
# run USER CONF CMD: a session without a terminal; stdout in $OUT, stderr
# in $ERR, status in $RC.
run() {
	as "$1" "$AISB_SHELL" --config "$2" -c "$3" >"$TOP/out" 2>"$TOP/err" </dev/null
	RC=$?
	OUT=$(cat "$TOP/out")
	ERR=$(cat "$TOP/err")
}
# lines REGEX: how many lines of $ERR match.
lines() { printf '%s\n' "$ERR" | grep -Ec -- "$1"; }

# --- refusals on stderr: once per name, whatever the path -----------
run "$U" "$C" 'echo "$AISB_SESSION"
for i in $(seq 20); do curl -s --max-time 5 -o /dev/null http://www.example.test/; done
for i in $(seq 20); do '"$noproxy"' curl -s --max-time 5 -o /dev/null http://api.example.test:23/; done
for i in $(seq 20); do getent hosts other.example.test >/dev/null; done
for i in $(seq 5); do curl -s --max-time 5 -o /dev/null http://nx.example.test/; done
curl -s --max-time 5 -o /dev/null http://denied.example.test/
curl -s --max-time 10 -o /dev/null -w "%{size_header} %{size_download}\n" http://origin.test/bytes/123457'
ID1=$(printf '%s\n' "$OUT" | head -n 1)
diag "stderr: $(printf '%s' "$ERR" | tr '\n' '|')"
is "$RC" 0 "the session ran (status 0)"
is "$(lines '^aisb: denied www\.example\.test:80 \(not in network\.allow\)$')" 1 \
    "20 refusals through the proxy: one line naming host, port and rule"
is "$(lines '^aisb: denied api\.example\.test:23 \(this port is not allowed for it\)$')" 1 \
    "20 refusals on the capture path: one line"
is "$(lines '^aisb: denied other\.example\.test \(DNS lookup; not in network\.allow\)$')" 1 \
    "20 refused DNS lookups: one line"
is "$(lines '^aisb: nx\.example\.test does not resolve$')" 1 \
    "an allowed name that does not resolve, 5 times: one line saying so"
is "$(lines '^aisb: denied denied\.example\.test:80 \(in network\.deny\)$')" 1 \
    "a name in network.deny: its rule"
is "$(lines 'origin\.test')" 0 "twin: the allowed transfer: no line"
is "$(lines '^aisb: ')" 5 "nothing else on stderr from aisb"
got=$(printf '%s\n' "$OUT" | sed -n 2p)
ok "curl got the 123457 bytes ($got)" test "${got#* }" = 123457

# --- the record: --egress --------------------------------------------
like "$ID1" '^[0-9a-f]{32}$' "the session's id (AISB_SESSION)"
ok "its registry file exists, owned by the agent, mode 0600" \
    test "$(stat -c '%U %a' "$REG_DIR/$(id -u "$U")/$ID1" 2>&1)" = "$U 600"
J=$("$AISB_SHELL" --egress "$ID1" --json)
ent() { reg_json_get "$J" "[e for e in d['sessions'][0]['egress'] if e['name'] == '$1' and e['port'] == $2][0]['$3']"; }
want=$(( ${got% *} + ${got#* } ))
is "$(ent origin.test 80 down)" "$want" "--egress: the allowed transfer's bytes down ($want: head + 123457)"
is "$(ent origin.test 80 allowed)" 1 "... one connection allowed"
is "$(ent www.example.test 80 denied)" 20 "... the 20 refusals of one name counted"
is "$(ent api.example.test 23 via)" capture "... the capture path's entry"
ok "... the DNS refusals, port 0 ($(ent other.example.test 0 denied) queries: getent asks A and AAAA)" \
    test "$(ent other.example.test 0 denied)" -ge 20
is "$(ent nx.example.test 80 rule)" unresolved "... the name that does not resolve"
is "$(reg_json_get "$J" "d['sessions'][0]['state']")" ended "... the session has ended"
is "$(reg_json_get "$J" "d['sessions'][0]['ended']['status']")" 0 "... with its status"
TXT=$("$AISB_SHELL" --egress "$ID1")
allow=$(printf '%s\n' "$TXT" | grep '^network { allow += ')
is "$allow" 'network { allow += {"api.example.test:23", "other.example.test", "www.example.test:80"} }' \
    "--egress: one allow line for what was refused"
like "$TXT" '# denied\.example\.test \(port 80\) is refused by network\.deny' \
    "... network.deny is a comment, not an allow entry"
unlike "$allow" 'nx\.example|origin' "... neither a name that does not resolve nor one that was allowed"
ok "a user's name finds the same record" eval '"$AISB_SHELL" --egress "$U" | grep -q "$ID1"'
out=$("$AISB_SHELL" --egress "$ID1" --since @$(( $(date +%s) + 3600 )) 2>&1)
unlike "$out" 'www\.example' "--since after the session: nothing of it"
out=$(as "$U" "$AISB_SHELL" --egress "$ID1" 2>&1)
like "$out" 'root' "--egress as the agent: refused (root only)"
# Pasted into users.d: it passes --check-config, and the names work.
printf '%s\n' "$allow" > "$TOP/conf/users.d/$U.conf"
chmod 0644 "$TOP/conf/users.d/$U.conf"
out=$("$AISB_SHELL" --check-config --config "$C" 2>&1)
is "$?" 0 "the pasted line passes --check-config"
run "$U" "$C" 'curl -s --max-time 5 http://www.example.test/; getent hosts other.example.test >/dev/null && echo resolves'
like "$OUT" 'aisb-origin ok' "... and the refused name is then reached"
like "$OUT" 'resolves' "... and the refused lookup resolves"
is "$(lines '^aisb: ')" 0 "... without a line on stderr"
rm -f "$TOP/conf/users.d/$U.conf"

# --- network.notices = false -----------------------------------------
run "$U" "$QUIET" 'echo "$AISB_SESSION"; curl -s --max-time 5 -o /dev/null http://www.example.test/'
is "$(lines '^aisb: ')" 0 "network.notices = false: no line on stderr"
is "$("$AISB_SHELL" --egress "$OUT" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print([e["denied"] for e in d["sessions"][0]["egress"] if e["name"]=="www.example.test"][0])')" 1 \
    "... the record still has the refusal"

# --- a terminal: never inside a line, never in a full-screen program ----
# ptyrun.py CMD: run the session on a pty of ours; the bytes it wrote, as
# Python's repr, after sending "q" once the marker FULL appears.
cat > "$TOP/ptyrun.py" <<'PY'
import os, pty, select, sys, time
argv = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b""
sent = False
t_full = None
end = time.time() + 40
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        out += b
    if b"FULL" in out and t_full is None:
        t_full = time.time()
    # less runs; the refusal happens meanwhile (2 s); then quit it.
    if t_full and not sent and time.time() - t_full > 4:
        os.write(fd, b"q")
        sent = True
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
PY
printf 'FULL\n' > "$TOP/$U/project/page.txt"
chmod 0644 "$TOP/$U/project/page.txt"
as "$U" env TERM=xterm python3 "$TOP/ptyrun.py" "$AISB_SHELL" --config "$C" -c '
(sleep 1; curl -s --max-time 5 -o /dev/null http://www.example.test/) &
less /project/page.txt
printf "partial"; curl -s --max-time 5 -o /dev/null http://denied2.example.test/; sleep 2; printf " line\n"
echo after' > "$TOP/tty.out" 2>&1
python3 - "$TOP/tty.out" > "$TOP/tty.res" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
n1 = b.find(b"aisb: denied www.example.test:80")
n2 = b.find(b"aisb: denied denied2.example.test:80")
alt_on = b.find(b"\x1b[?1049h")
alt_off = b.find(b"\x1b[?1049l")
print("alt", alt_on >= 0 and alt_off > alt_on)
print("n1_after_less", n1 > alt_off > 0)
print("n1_bol", n1 > 0 and b[:n1].rstrip(b"\r").endswith(b"\n"))
print("partial_whole", b"partial line" in b)
print("n2_after_line", n2 > b.find(b"partial line") > 0)
print("n2_bol", n2 > 0 and b[:n2].rstrip(b"\r").endswith(b"\n"))
print("count", b.count(b"aisb: denied"))
PY
diag "tty: $(tr '\n' ' ' < "$TOP/tty.res")"
grep -q '^alt True' "$TOP/tty.res" || diag "raw: $(od -c "$TOP/tty.out" | head -40 | tr -s ' ')"
ok "witness: less switched the alternate screen on and off" grep -q '^alt True' "$TOP/tty.res"
ok "a refusal while less runs is shown only after it left the screen" grep -q '^n1_after_less True' "$TOP/tty.res"
ok "... at the start of a line" grep -q '^n1_bol True' "$TOP/tty.res"
ok "a refusal while a line is being written does not break it" grep -q '^partial_whole True' "$TOP/tty.res"
ok "... it comes after the line's end" grep -q '^n2_after_line True' "$TOP/tty.res"
ok "... at the start of a line" grep -q '^n2_bol True' "$TOP/tty.res"
ok "each shown once" grep -q '^count 2$' "$TOP/tty.res"

# --- the registry: --sessions, a killed session, forgeries, --end -------
# bg USER TAG: a session that sleeps; its id in $TOP/USER/project/TAG.
bg() {
	as "$1" "$AISB_SHELL" --config "$C" -c 'echo "$AISB_SESSION" > /project/'"$2"'.tmp && mv /project/'"$2"'.tmp /project/'"$2"'; exec sleep 300' \
	    >/dev/null 2>"$TOP/$2.err" </dev/null &
	BG=$!
	at_exit "kill $BG"
}
waitfile() {
	local _
	for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}
bg "$U" a; pa=$BG
bg "$U" b; pb=$BG
bg "$V" c; pc=$BG
waitfile "$TOP/$U/project/a" && waitfile "$TOP/$U/project/b" && waitfile "$TOP/$V/project/c"
A=$(cat "$TOP/$U/project/a") B=$(cat "$TOP/$U/project/b") Cc=$(cat "$TOP/$V/project/c")
sleep 1.2	# the first file is written at once; counts once a second
diag "processes: $(ps -o pid=,stat=,args= -u "$U","$V" | tr '\n' '|')"
S=$("$AISB_SHELL" --sessions --json)
sess() { reg_json_get "$S" "[s for s in d['sessions'] if s['id'] == '$1'][0]['$2']"; }
is "$(sess "$A" user) $(sess "$B" user) $(sess "$Cc" user)" "$U $U $V" \
    "--sessions: two sessions of one agent and one of another, with their users"
is "$(sess "$A" network) $(sess "$A" tty) $(sess "$A" peer)" "gated - -" \
    "... network mode, no tty, no peer (not over ssh)"
is "$(sess "$A" registered)" True "... registered"
ok "the text form lists all three" eval '"$AISB_SHELL" --sessions | grep -c -e "$A" -e "$B" -e "$Cc" | grep -qx 3'
is "$(reg_json_get "$S" "len([s for s in d['sessions'] if s['id'] == '$ID1'])")" 0 \
    "an ended session is not listed"
out=$(as "$U" "$AISB_SHELL" --sessions 2>&1)
is "$?" 2 "--sessions as the agent: refused"

# Inside: the registry is nowhere to be seen or written.
run "$U" "$C" 'ls /var/lib/aisb/sessions 2>&1 | head -n 1; echo x > /var/lib/aisb/sessions/'"$(id -u "$U")"'/'"$A"' 2>&1; echo rc=$?;
ls -d /var/lib/aisb 2>&1; grep -c aisb/sessions /proc/self/mountinfo'
like "$OUT" 'rc=[1-9]' "inside: writing its own registry file fails"
unlike "$OUT" "$A" "... and no entry can be listed"
ok "... the file on the host is unchanged" eval 'head -n 1 "$REG_DIR/$(id -u "$U")/$A" | grep -qx "registry version=1"'
B78=$(FS='readonly = {"/var/lib"}' conf bindreg)
run "$U" "$B78" 'echo in'
is "$RC" 78 "a policy binding /var/lib (which holds the registry) is refused (78)"
like "$ERR" 'session registry' "... saying why"
RO=$(FS='readonly = {"/var/log"}' conf bindok)
run "$U" "$RO" 'echo in'
is "$OUT" in "twin: binding /var/log is fine"

# A forged entry: a live process of the agent that is not aisb-shell.
as "$U" sleep 300 &
fake=$!
at_exit "kill $fake"
sleep 0.2
fpid=$(pgrep -n -u "$U" -x sleep)
fst=$(awk '{sub(/.*\) /, ""); print $20}' "/proc/$fpid/stat")
FID=fedcba9876543210fedcba9876543210
sed -e "s/ id=$A / id=$FID /" -e "s/ pid=[0-9]* / pid=$fpid /" -e "s/ pstart=[0-9]* / pstart=$fst /" \
    "$REG_DIR/$(id -u "$U")/$A" > "$REG_DIR/$(id -u "$U")/$FID"
chown "$U" "$REG_DIR/$(id -u "$U")/$FID"
chmod 0600 "$REG_DIR/$(id -u "$U")/$FID"
ok "witness: the forged file names a live process of the agent (pid $fpid)" \
    eval 'grep -q " pid=$fpid pstart=$fst " "$REG_DIR/$(id -u "$U")/$FID"'
unlike "$("$AISB_SHELL" --sessions)" "$FID" "a forged entry naming a live non-aisb-shell process is not listed"
rm -f "$REG_DIR/$(id -u "$U")/$FID"

# --end: one session of U ends within 1 s, status 124; the other lives.
diag "processes: $(ps -o pid=,stat=,args= -u "$U","$V" | tr '\n' '|')"
diag "a.err: $(cat "$TOP/a.err")"
ia=$(sess "$A" init)
ok "witness: session A's init (pid $ia) runs" kill -0 "$ia"
t0=$(date +%s%N)
out=$("$AISB_SHELL" --end "$A" 2>&1)
rc=$?
t1=$(date +%s%N)
wait "$pa"
st=$?
diag "$out"
is "$rc" 0 "--end ID: done"
ok "... in under 1 s ($(( (t1 - t0) / 1000000 )) ms)" test $(( (t1 - t0) / 1000000 )) -lt 1000
ok "... its init is gone" test ! -e "/proc/$ia"
is "$st" 124 "... the caller gets status 124"
like "$(cat "$TOP/a.err")" 'administrator ended the session' "... and one line saying why"
is "$(pgrep -u "$U" -x sleep -c)" 2 "... no process of it is left (B's sleep and the forgery's remain)"
S=$("$AISB_SHELL" --sessions --json)
is "$(reg_json_get "$S" "sorted(s['id'] for s in d['sessions'])")" "$(python3 -c "print(sorted(['$B', '$Cc']))")" \
    "the other two sessions still run"
is "$(reg_json_get "$("$AISB_SHELL" --egress "$A" --json)" "d['sessions'][0]['ended']['how']")" ended \
    "the record says it was ended"
out=$(as "$U" "$AISB_SHELL" --end "$B" 2>&1)
is "$?" 2 "--end as the agent: refused"
ok "... and B still runs" kill -0 "$pb"

# A session killed with SIGKILL (its outer) is not listed as live.
ob=$(sess "$B" pid)
kill -KILL "$ob"
wait "$pb"
for _ in $(seq 20); do kill -0 "$(sess "$B" init)" 2>/dev/null || break; sleep 0.1; done
S=$("$AISB_SHELL" --sessions --json)
is "$(reg_json_get "$S" "len([s for s in d['sessions'] if s['id'] == '$B'])")" 0 \
    "a session whose outer was SIGKILLed is not listed"
ok "witness: its file is still there, saying nothing of an end" \
    eval '! grep -q "^end " "$REG_DIR/$(id -u "$U")/$B"'
like "$("$AISB_SHELL" --egress "$B")" 'gone without closing its record' "--egress calls it lost"

# --end USER: every session of V.
out=$("$AISB_SHELL" --end "$V" 2>&1)
is "$?" 0 "--end USER"
wait "$pc"
is "$?" 124 "... ends V's session (status 124)"
is "$(reg_json_get "$("$AISB_SHELL" --sessions --json)" "len(d['sessions'])")" 0 "no live sessions are left"
done_testing
