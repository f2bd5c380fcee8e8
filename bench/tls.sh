#!/bin/bash
# shellcheck disable=SC2086 # lists of figures split into numbers on purpose
# bench/tls.sh: the credential path's throughput.  One HTTPS GET of
# 256 MiB (QUICK: 32 MiB) from a TLS origin (socat terminating TLS in
# front of bench/benchnet's origin), all in one run and interleaved:
#   direct       curl to the origin, no gate;
#   gate-tunnel  curl through the gate's proxy to a port that no
#                credential names: a plain CONNECT tunnel (TLS end to
#                end, the gate splices bytes it cannot read);
#   gate-inject  curl through the gate's proxy to the credential's host
#                and port: the gate terminates TLS on both sides and puts
#                the credential into the request's header.
# The gate holds a credential in both gate runs, so gate-tunnel is the
# plain path of a session with credentials.  Each path RUNS times; the
# table has the median and the ratio to direct.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
size=$((256 << 20)) runs=3
[ -n "$QUICK" ] && { size=$((32 << 20)); runs=1; }
command -v socat >/dev/null || bl_skip tls "socat missing"
command -v curl >/dev/null || bl_skip tls "curl missing"
bl_setup tls
P_INJ=27443 P_TUN=27444
# The TLS origins: socat with the test internet's certificate (its CA is
# network.ca_file), in front of benchnet's plain origin.
for p in $P_INJ $P_TUN; do
	internet_spawn "$BL_INET" "tls$p" socat -b 262144 \
	    "OPENSSL-LISTEN:$p,bind=$INET_ADDR_SVC,reuseaddr,fork,cert=$INET_DIR/server.pem,key=$INET_DIR/server.key,verify=0" \
	    "TCP:$INET_ADDR_SVC:$BL_PORT"
	bl_wait_port "$INET_NS" "$INET_ADDR_SVC" "$p" ||
	    bl_skip tls "the TLS origin did not start: $(cat "$INET_DIR/tls$p.err")"
done
install -d -m 0755 "$W/secrets"
printf 'sk-bench-%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$W/secrets/key"
chown "root:$BL_USER" "$W/secrets/key"
chmod 0640 "$W/secrets/key"
cat > "$W/aisb.conf" <<C
network {
  mode = "gated"
  allow = {"svc.test:$P_INJ,$P_TUN"}
  allow_cidr = {"$INET_ADDR_SVC/32"}
  resolver = "$BL_DNS"
  ca_file = "$INET_CA"
}
credential bench {
  file = "$W/secrets/key"
  hosts = {"svc.test:$P_INJ"}
  header = "x-api-key"
  env = "API_KEY"
}
C
install -m 0644 -o "$BL_USER" /dev/null "$W/session-ca.pem"
bl_gate --ca-out "$W/session-ca.pem" || bl_fail tls "the gate did not start: $(bl_gate_why)"
PH=$(awk '$1 == "cred" {print $3}' "$W/drv.out")

get() { # PATH: one transfer, "BYTES SECONDS" on stdout
	local u=/bytes/$size f='%{size_download} %{time_total}'
	case "$1" in
	direct) timeout 120 curl -sS -o /dev/null -w "$f" --cacert "$INET_CA" \
	    --resolve "svc.test:$P_INJ:$INET_ADDR_SVC" "https://svc.test:$P_INJ$u" ;;
	gate-tunnel) tgin 120 curl -sS -o /dev/null -w "$f" --cacert "$INET_CA" \
	    -x http://127.0.0.1:3128 "https://svc.test:$P_TUN$u" ;;
	gate-inject) tgin 120 curl -sS -o /dev/null -w "$f" --cacert "$W/session-ca.pem" \
	    -H "x-api-key: $PH" -x http://127.0.0.1:3128 "https://svc.test:$P_INJ$u" ;;
	esac
}

paths=(direct gate-tunnel gate-inject)
declare -A res
rc=0
for ((r = 0; r < runs; r++)); do
	for p in "${paths[@]}"; do
		if out=$(get "$p" 2>"$W/err") && [ "${out%% *}" = "$size" ]; then
			res[$p]+=" $(awk '{printf "%.1f", $1 / $2 / 1e6}' <<< "$out")"
		else
			echo "tls: $p failed: $out $(head -c 300 "$W/err")"
			rc=1
		fi
	done
done
kill -0 "$GATE_PID" 2>/dev/null || { echo "tls: the gate died: $(bl_gate_why)"; rc=1; }
# The witness that gate-inject went through the terminating path: the
# gate's leaf, not the origin's certificate.
issuer=$(tgin 30 curl -sS -v -o /dev/null --cacert "$W/session-ca.pem" \
    -x http://127.0.0.1:3128 "https://svc.test:$P_INJ/bytes/1" 2>&1 | sed -n 's/^\*  *issuer: *//p' | head -1)
echo "gate-inject certificate issuer: ${issuer:-?}"

printf '%s\n' "HTTPS transfer of $((size >> 20)) MiB, median of $runs"
printf '%-14s %10s %10s\n' path "MB/s" "x direct"
d=$(bl_median ${res[direct]:-0})
for p in "${paths[@]}"; do
	[ -n "${res[$p]:-}" ] || continue
	m=$(bl_median ${res[$p]})
	printf '%-14s %10.1f %10.2f\n' "$p" "$m" "$(awk -v a="$m" -v b="$d" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
exit $rc
