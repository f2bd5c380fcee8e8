#!/bin/bash
# The shipped sshd drop-in (etc/ssh/sshd_config.d/aisb.conf) against a
# real sshd: for an agent in group ai-agents, -L, -D, -R and unix-socket
# forwarding are refused; the twin, a user outside the group, can forward
# (so the refusals come from the drop-in, not from this setup).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
require_root
for c in sshd ssh curl socat python3; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
pam_group "$AG"
tu_user ${U1} && usermod -aG "$AG" -s "$AISB_SHELL" ${U1}
tu_user ${U2}
ssh_key ${U1}
ssh_key ${U2}
sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }

# The thing to reach: an HTTP server on host loopback, and a unix socket.
mkdir "$T/www" && echo hello-aisb > "$T/www/hello.txt"
tport=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$tport" >/dev/null 2>&1 &
at_exit "kill $!"
wait_port "$tport"
ok "the target answers directly" test "$(curl -s --max-time 5 "http://127.0.0.1:$tport/hello.txt")" = hello-aisb
socat UNIX-LISTEN:"$T/sock",fork,mode=0666 SYSTEM:'echo unix-hello' &
at_exit "kill $!"

# fwd USER NAME SSH-ARGS...: run ssh -N in the background, stderr in $T/NAME.
fwd() {
	local u=$1 name=$2; shift 2
	sshc_bg "$T/$name" "$u" -N "$@"
}
get() { curl -s --max-time 5 "$@"; }

declare -A L D S	# what -L, -D and -L to a unix socket returned, per user
for u in "$U1" "$U2"; do
	lp=$(free_port); fwd "$u" "L-$u" -L "$lp:127.0.0.1:$tport"; wait_port "$lp"
	L[$u]=$(get "http://127.0.0.1:$lp/hello.txt")
	dp=$(free_port); fwd "$u" "D-$u" -D "127.0.0.1:$dp"; wait_port "$dp"
	D[$u]=$(get --socks5 "127.0.0.1:$dp" "http://127.0.0.1:$tport/hello.txt")
	up=$(free_port); fwd "$u" "U-$u" -L "$up:$T/sock"; wait_port "$up"
	S[$u]=$(socat -T5 - "TCP:127.0.0.1:$up" </dev/null 2>/dev/null)
done
is "${L[$U2]}" hello-aisb "twin: ssh -L reaches a host loopback service"
is "${L[$U1]}" "" "agent: ssh -L refused"
is "${D[$U2]}" hello-aisb "twin: ssh -D (SOCKS) reaches it"
is "${D[$U1]}" "" "agent: ssh -D refused"
is "${S[$U2]}" unix-hello "twin: ssh -L to a host unix socket works"
is "${S[$U1]}" "" "agent: ssh -L to a host unix socket refused"

log=$(cat "$T/sshd.log")
like "$log" "Accepted publickey for ${U1}" "agent did log in (the refusals are not a failed login)"
is "$(grep -c "refused local port forward: .*target 127.0.0.1 port $tport" "$T/sshd.log")" 2 \
	"sshd log: -L and -D refused by policy"
like "$log" "refused streamlocal port forward: .*target $T/sock" "sshd log: unix-socket forward refused"

# -R: ask sshd to listen on the host; with ExitOnForwardFailure the client
# gives up when sshd says no.
rp1=$(free_port)
sshc ${U1} -N -o ExitOnForwardFailure=yes -R "$rp1:127.0.0.1:$tport" 2>"$T/R-${U1}"
rc=$?
ok "agent: ssh -R refused (client exits, status $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
like "$(cat "$T/R-${U1}")" "remote port forwarding failed" "agent: sshd refused the listener"
ok "agent: nothing listens on the requested host port" bash -c "! ss -Htln 'sport = :$rp1' | grep -q ."
rp2=$(free_port)
fwd ${U2} R-${U2} -o ExitOnForwardFailure=yes -R "$rp2:127.0.0.1:$tport"
wait_port "$rp2"
is "$(get "http://127.0.0.1:$rp2/hello.txt")" hello-aisb "twin: ssh -R listener on the host works"

# sshd's own verdict for each user, as --doctor reads it.
cfg() { /usr/sbin/sshd -T -f "$T/sshd_config" -C "user=$1,host=localhost,addr=127.0.0.1"; }
like "$(cfg ${U1})" "^disableforwarding yes" "sshd -T: agent has DisableForwarding"
like "$(cfg ${U1})" "permituserrc no" "sshd -T: agent has PermitUserRC no"
like "$(cfg ${U1})" "authorizedkeysfile /etc/ssh/authorized_keys/%u" "sshd -T: agent keys root-owned"
like "$(cfg ${U2})" "disableforwarding no" "sshd -T: twin unaffected"

done_testing
