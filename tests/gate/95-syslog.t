#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# The decision records go to syslog: facility authpriv, ident aisb-gate,
# one line per decision and per close.  The gate runs in a private mount
# namespace whose /dev/log is a test listener (tests/lib/syslog.sh; the
# host's is untouched).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
gt_setup
: > "$T/syslog"
uid=$(id -u "$GT_USER"); gid=$(id -g "$GT_USER")
unshare -m --propagation private bash -c '
	. "$1"; T=$2; shift 2
	syslog_dev "$T/syslog"
	echo "$SYSLOG_PID" > "$T/syslog.pid"
	exec setpriv --reuid="$1" --regid="$2" --init-groups env -i PATH=/usr/bin:/bin \
	    "$3" --config "$T/aisb.conf" --user "$4" --gate "$5"
' gt-syslog "$SYSLOG_LIB" "$T" "$uid" "$gid" "$AISB_HELPERS/gatedrv" "$GT_USER" "$AISB_GATE" \
    > "$T/drv.out" 2> "$T/gate.log" {GT_LOCKFD}>&- &
DRV_WRAP=$!
for _ in $(seq 1 100); do grep -q '^ready' "$T/drv.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$T/drv.out" || skip_all "gate did not start"
GATE_PID=$(awk '/^ready/ {print $2}' "$T/drv.out")
DRV=$(pgrep -f "gatedrv --config $T/aisb.conf" | head -1)
NS=/proc/$DRV/ns/net
at_exit 'kill $(cat "$T/syslog.pid")'
at_exit "gt_gate_stop"

is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "an allowed request"
gcurl -o /dev/null http://evil.example.com/
gin dig +short @127.0.0.1 evil.example.com >/dev/null
# The records come as the gate handles each: wait for the last of them
# (the close record follows the client's close).
for _ in $(seq 1 50); do
	grep -q 'dns udp query name=evil.example.com' "$T/syslog" &&
	    grep -q 'close proxy name=origin.tgat.test' "$T/syslog" && break
	sleep 0.1
done
log=$(cat "$T/syslog")
# <86> = authpriv (10) * 8 + info (6)
like "$log" "^<86>.* aisb-gate\[$GATE_PID\]: gate ready: session gatedrv, user $GT_USER" "start-up record: authpriv.info, ident aisb-gate, with the pid"
like "$log" "<86>.* aisb-gate\[$GATE_PID\]: allow proxy name=origin.tgat.test port=23080 address=127.0.0.2 rule=\"network.allow entry origin.tgat.test \($T/aisb.conf:3\)\"" "allow: name, port, address, and the rule with its file and line"
like "$log" "aisb-gate\[$GATE_PID\]: close proxy name=origin.tgat.test port=23080 address=127.0.0.2 up=[0-9]+ down=[0-9]+ duration=[0-9]+ms" "close: bytes each way and duration"
like "$log" "aisb-gate\[$GATE_PID\]: deny proxy name=evil.example.com port=80 rule=network.allow reason=\"evil.example.com:80 is not in network.allow\"" "deny: the rule and the reason"
like "$log" "aisb-gate\[$GATE_PID\]: dns udp query name=evil.example.com type=A decision=deny" "DNS queries"
is "$(grep -c 'allow proxy name=origin.tgat.test' "$T/syslog")" "1" "one line per decision"
done_testing
