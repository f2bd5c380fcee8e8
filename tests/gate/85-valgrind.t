#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# The gate under valgrind with a short mixed load: no memory error, no
# leak.  (The gate's test build with seccomp off: valgrind's own syscalls
# and executable translations are not in the gate's allowlist; Landlock
# and everything else stay on.  The release gate has no such switch:
# tests/gate/80-harden.t.)
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip_all "valgrind not installed"
ldd "$AISB_GATE_TEST" 2>/dev/null | grep -q libasan && skip_all "an ASan build does not run under valgrind"
gt_setup
mkdir "$T/vg"
chown "$GT_USER" "$T/vg"
cat > "$T/vg/wrap" <<W
#!/bin/sh
exec valgrind --leak-check=full --error-exitcode=99 --log-file=$T/vg/log "\$@"
W
chmod 755 "$T/vg/wrap"
GT_GATE=$AISB_GATE_TEST gt_gate --no-seccomp --wrap "$T/vg/wrap" || skip_all "gate did not start under valgrind"

is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "http under valgrind"
is "$(gcurl --cacert "$T/ca.pem" https://origin.tgat.test:23443/hello)" "hello from origin 127.0.0.2:23443 tls" "https under valgrind"
like "$(gcurl -D - http://loop.tgat.test:23080/ 2>&1)" "403" "a refusal under valgrind"
like "$(gin dig +short @127.0.0.1 origin.tgat.test)" "^198\." "udp DNS under valgrind"
like "$(gin dig +short +tcp @127.0.0.1 origin.tgat.test)" "^198\." "tcp DNS under valgrind"
gin python3 "$(dirname "$0")/malformed.py" http 3128 >/dev/null 2>&1
gin python3 "$(dirname "$0")/malformed.py" dns >/dev/null 2>&1
gin bash -c 'for i in $(seq 1 30); do curl -s --max-time 30 --proxy http://127.0.0.1:3128 -o /dev/null http://origin.tgat.test:23080/bytes/100000 & done; wait'
out=$(printf 'c%s' {1..100} | gcurl -H 'Transfer-Encoding: chunked' --data-binary @- http://origin.tgat.test:23080/echo)
is "$out" "echo:$(printf 'c%s' {1..100})" "chunked under valgrind"
ok "the gate survived the load" gt_gate_alive
gt_gate_stop
for _ in $(seq 1 100); do grep -q "ERROR SUMMARY" "$T/vg/log" 2>/dev/null && break; sleep 0.1; done
like "$(cat "$T/vg/log")" "ERROR SUMMARY: 0 errors" "valgrind: no errors"
like "$(cat "$T/vg/log")" "in use at exit: 0 bytes in 0 blocks" "valgrind: everything freed at exit"
unlike "$(cat "$T/gate.log")" "gate exited [1-9]" "the gate exited 0"
done_testing
