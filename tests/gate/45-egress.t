#!/bin/bash
# The gate's egress record (gate/egress.c) as aisb-shell receives it on
# fd 4 (gatedrv --records): one entry per name and port with its counts
# and bytes, one notice per refused name however often it is refused
# (proxy, capture and DNS), one for an allowed name that does not
# resolve, and a record that stays bounded under 100 000 refused names.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
command -v dig >/dev/null || skip_all "dig missing (tests/deps.sh test)"
REC=$T/records
: > "$REC"
chown "$GT_USER" "$REC"
gt_gate --nft --records "$REC" || skip_all "gate did not start"

# notices NAME: how many notices name NAME so far.
notices() { grep -c "^notice .* name=$1 " "$REC"; }
# entry NAME PORT: the last egress message of NAME:PORT.
entry() { grep "^egress name=$1 port=$2 " "$REC" | tail -1; }
# field LINE KEY
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
settle() { sleep 1.5; }	# the gate sends what changed every tick

# --- the proxy: 20 refusals of one name, one notice
for _ in $(seq 20); do
	gcurl -o /dev/null https://evil.tgat.test/ 2>/dev/null
done
settle
is "$(notices evil.tgat.test)" 1 "20 proxy refusals of one name: one notice"
like "$(grep '^notice .* name=evil.tgat.test ' "$REC")" \
	"kind=deny name=evil.tgat.test port=443 rule=network.allow" \
	"... naming the port and the rule"
e=$(entry evil.tgat.test 443)
is "$(field "$e" denied)" 20 "the entry counts all 20"
is "$(field "$e" via)" proxy "... by the proxy"
# the twin: allowed names get no notice
gcurl -o /dev/null http://origin.tgat.test:23080/hello
settle
is "$(notices origin.tgat.test)" 0 "twin: an allowed connection: no notice"

# --- an allowed transfer of N bytes: the entry's down is what arrived
n=123457
down0=$(field "$(entry origin.tgat.test 23080)" down)
got=$(gcurl -o /dev/null -w '%{size_header} %{size_download}' \
	"http://origin.tgat.test:23080/bytes/$n")
settle
want=$(( ${got% *} + ${got#* } ))
ok "curl got the $n bytes of the body" test "${got#* }" = "$n"
e=$(entry origin.tgat.test 23080)
is "$(( $(field "$e" down) - ${down0:-0} ))" "$want" \
    "the entry's bytes down grew by the $want bytes curl read (head + $n)"
ok "... and its bytes up (the request)" test "$(field "$e" up)" -gt 0
is "$(field "$e" allowed)" 2 "... two connections allowed"
is "$(field "$e" open)" 0 "... none open now"

# --- DNS: 20 refused queries of one name, one notice, port 0
for _ in $(seq 20); do
	gin dig +short +tries=1 +time=2 @127.0.0.1 dnsevil.tgat.test >/dev/null
done
settle
is "$(notices dnsevil.tgat.test)" 1 "20 refused DNS queries of one name: one notice"
like "$(grep '^notice .* name=dnsevil.tgat.test ' "$REC")" "kind=deny name=dnsevil.tgat.test port=0 " \
	"... a DNS one (port 0)"
e=$(entry dnsevil.tgat.test 0)
is "$(field "$e" denied)" 20 "the DNS entry counts all 20"
is "$(field "$e" via)" dns "... by the stub"
gin dig +short +tries=1 +time=2 @127.0.0.1 origin.tgat.test >/dev/null
settle
ok "twin: an allowed lookup is counted" test "$(field "$(entry origin.tgat.test 0)" lookups)" -ge 1
is "$(notices origin.tgat.test)" 0 "... without a notice"

# --- the capture path: an allowed name on a port it may not use
a=$(gin dig +short +tries=1 +time=2 @127.0.0.1 x.wild.tgat.test)
like "$a" '^198\.1[89]\.' "x.wild.tgat.test has a synthetic address"
for _ in $(seq 20); do
	gin curl -s --max-time 3 -o /dev/null "http://$a:23099/" 2>/dev/null
done
settle
is "$(notices x.wild.tgat.test)" 1 "20 captured refusals of one name: one notice"
like "$(grep '^notice .* name=x.wild.tgat.test ' "$REC")" "port=23099 rule=network.ports" \
	"... the port and rule network.ports"
e=$(entry x.wild.tgat.test 23099)
is "$(field "$e" denied)" 20 "the capture entry counts all 20"
is "$(field "$e" via)" capture "... by the capture port"

# --- an allowed name that does not resolve: one notice, as such
for _ in $(seq 5); do
	gcurl -o /dev/null http://nx.wild.tgat.test:23080/ 2>/dev/null
done
settle
is "$(notices nx.wild.tgat.test)" 1 "5 lookups of an allowed name that does not exist: one notice"
like "$(grep '^notice .* name=nx.wild.tgat.test ' "$REC")" "kind=unresolved" \
	"... saying it does not resolve"
is "$(field "$(entry nx.wild.tgat.test 23080)" failed)" 5 "the entry counts 5 failures"

# --- bounded: 100 000 refused names
rss() { awk '/^VmRSS/ {print $2}' "/proc/$GATE_PID/status"; }
rss0=$(rss)
gin python3 - <<'PY'
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
def q(i, name):
    m = struct.pack("!HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0)
    for l in name.split("."):
        m += bytes([len(l)]) + l.encode()
    return m + b"\0" + struct.pack("!HH", 1, 1)
sent = 0
for i in range(100000):
    s.sendto(q(i, "n%d.flood.example" % i), ("127.0.0.1", 53))
    sent += 1
    if i % 64 == 63:
        # keep the stub's socket from overflowing: wait for the answers
        for _ in range(64):
            try:
                s.recv(4096)
            except socket.timeout:
                break
PY
sleep 2
flood=$(grep -c '^egress name=n[0-9]*\.flood\.example ' "$REC")
names=$(grep '^egress ' "$REC" | sed 's/ port=\([0-9]*\) .*/ \1/' | sort -u | wc -l)
ok "the record holds at most 2048 names and ports ($names)" test "$names" -le 2048
ok "... the table filled up with flood names ($flood messages)" test "$flood" -ge 1900
d=$(grep '^dropped ' "$REC" | tail -1)
dd=$(field "$d" denied)
ok "what did not fit is counted: $dd refusals dropped" test "${dd:-0}" -ge 97000
ok "notices stayed few under the flood ($(grep -c '^notice ' "$REC") in all)" \
	test "$(grep -c '^notice .*flood' "$REC")" -le 20
t=$(grep '^totals ' "$REC" | tail -1)
ok "the rest is counted as not shown ($(field "$t" hidden))" test "$(field "$t" hidden)" -ge 97000
rss1=$(rss)
diag "gate VmRSS: $rss0 kB before the flood, $rss1 kB after"
ok "the gate's memory stayed bounded (+$((rss1 - rss0)) kB)" test $((rss1 - rss0)) -lt 4096
ok "the gate is alive" gt_gate_alive

# --- at the end the gate sends what is left, then closes
gcurl -o /dev/null http://origin.tgat.test:23080/hello
gt_gate_stop
is "$(field "$(entry origin.tgat.test 23080)" allowed)" 3 \
	"stopped at once after a connection: its record still arrives"

done_testing
