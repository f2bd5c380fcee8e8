#!/bin/bash
# Fail closed: when the gate dies, nothing inside has any way out (the
# netns has only lo); the sandbox side keeps running.  The session ends
# the gate with SIGTERM.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate --nft || skip_all "gate did not start"
echo "nameserver 127.0.0.1" > "$T/resolv.conf"

is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "before: egress through the gate works (twin)"
# A long transfer in flight when the gate dies: killed once its first
# bytes have arrived (100 MB at 1 MB/s would take 100 s).  What the
# kernel already holds for the slow client still drains after the kill:
# small socket buffers on the client's side of the gate (this netns
# only) keep that to a fraction of a second, so "at once" can be timed.
gin sysctl -qw net.ipv4.tcp_rmem="4096 65536 65536" net.ipv4.tcp_wmem="4096 65536 65536"
rm -f "$T/partial"
gin curl -sS --max-time 30 --limit-rate 1M --proxy http://127.0.0.1:3128 \
    -o "$T/partial" http://origin.tgat.test:23080/bytes/100000000 2>/dev/null &
cpid=$!
size() { stat -c %s "$T/partial" 2>/dev/null || echo 0; }
for _ in $(seq 1 100); do [ "$(size)" -gt 0 ] && break; sleep 0.1; done
before=$(size)
ok "the transfer is in flight through the gate ($before bytes)" [ "$before" -gt 0 ]
t0=$(date +%s%N)
kill -KILL "$GATE_PID"
for _ in $(seq 1 50); do gt_gate_alive || break; sleep 0.1; done
ok "the gate is gone" gt_gate_dead
wait "$cpid"; crc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
# 18: the body ended short; 56: the connection failed while receiving.
ok "the transfer in flight was cut off at once (curl rc=$crc after $ms ms, $(size) bytes)" \
    eval '{ [ "$crc" = 18 ] || [ "$crc" = 56 ]; } && [ "$ms" -lt 2000 ]'
out=$(gcurl http://origin.tgat.test:23080/hello 2>&1)
unlike "$out" "hello from origin" "after: the proxy is gone"
out=$(gin curl -sS --max-time 3 http://127.0.0.2:23080/hello 2>&1)
unlike "$out" "hello from origin" "after: no direct route to the origin"
out=$(gin dig +tries=1 +time=1 @127.0.0.1 origin.tgat.test 2>&1)
unlike "$out" "ANSWER: 1" "after: no DNS answers"
out=$(gin curl -sS --max-time 3 http://198.18.0.1:23080/hello 2>&1)
unlike "$out" "hello from origin" "after: the capture path is closed"
ok "the sandbox side (gatedrv) still runs" kill -0 "$DRV"
like "$(cat "$T/gate.log")" "the gate exited \(signal 9\)" "the session side notices and says so"
ok "the canary never saw a connection" gt_canary_clean

# A fresh gate: init closing its end of fd 3 does not end it (the
# session still needs it); SIGTERM from the session ends it cleanly.
gt_gate_stop
gt_gate_or_bail ""
gp=$GATE_PID
ok "the gate keeps serving after init closed its end of fd 3" gt_gate_alive
is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "... and egress works"
kill "$DRV"
for _ in $(seq 1 50); do kill -0 "$gp" 2>/dev/null || break; sleep 0.1; done
ok "the gate exits on the session's SIGTERM" gt_gate_dead "$gp"
like "$(cat "$T/gate.log")" "gatedrv: the gate exited 0" "... with status 0"
done_testing
