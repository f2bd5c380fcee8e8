#!/bin/bash
# bench/concurrency.sh: N sessions of one user started at once
# (`aisb-shell -c true`, gated network: a gate and nftables each), N = 50
# (QUICK: 10).  Prints p50, p99 and max of the start-to-exit times, the
# wall time of the whole burst, and how many succeeded (all must).  The
# baseline is one session alone (median of 10), measured in the same run.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
n=50 solo=10
[ -n "$QUICK" ] && { n=10; solo=3; }
u=tbch2
[ "$(id -u)" = 0 ] || bl_skip concurrency "needs root (creates a user)"
trap bl_cleanup EXIT
trap 'exit 130' INT TERM
W=$(mktemp -d /run/bch.XXXXXX)
chmod 755 "$W"
bl_at_exit "rm -rf '$W'"
userdel -r "$u" >/dev/null 2>&1 || true
useradd -m -s /bin/bash "$u" || bl_skip concurrency "cannot create $u"
bl_at_exit "userdel -r $u"
bl_at_exit "pkill -KILL -u $u"
install -d -o "$u" -m 0755 "$W/$u" "$W/$u/project"
cat > "$W/gated.conf" <<EOC
project { path = "$W/%u/project"  roots = {"$W/%u"} }
home { path = "tmpfs" }
network { mode = "gated" }
limits { enforce = "best-effort" }
EOC
chmod 644 "$W/gated.conf"
cmd=(setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups
	env -i PATH=/usr/bin:/bin HOME=/ "$BUILD/bin/aisb-shell" --config "$W/gated.conf" -c true)
if ! out=$(cd / && timeout 30 "${cmd[@]}" 2>&1); then
	bl_skip concurrency "one session does not start here yet: $(head -c 200 <<< "$out" | tr '\n' ' ')"
fi
cd / && python3 - "$n" "$solo" "${cmd[@]}" <<'EOP'
import subprocess, sys, time, threading

n, solo, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]

def one(out, i, gate):
    gate.wait()
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        rc, err = p.returncode, p.stderr.decode(errors="replace").strip()
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    out[i] = (time.monotonic() - t0, rc, err)

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * len(xs) + 0.5)) - 1))]

alone = []
for _ in range(solo):
    r = [None]
    g = threading.Event(); g.set()
    one(r, 0, g)
    alone.append(r[0][0])
res = [None] * n
gate = threading.Event()
ts = [threading.Thread(target=one, args=(res, i, gate)) for i in range(n)]
for t in ts:
    t.start()
t0 = time.monotonic()
gate.set()
for t in ts:
    t.join()
wall = time.monotonic() - t0
times = [r[0] for r in res]
bad = [r for r in res if r[1] != 0]
base = sorted(alone)[len(alone) // 2]
p50, p99 = pct(times, 0.50), pct(times, 0.99)
print(f"{n} sessions of one user at once (aisb-shell -c true, gated), ms")
print(f"{'':<18} {'ms':>9}")
print(f"{'one alone (median)':<18} {base*1e3:>9.1f}")
print(f"{'p50':<18} {p50*1e3:>9.1f}")
print(f"{'p99':<18} {p99*1e3:>9.1f}")
print(f"{'max':<18} {max(times)*1e3:>9.1f}")
print(f"{'whole burst':<18} {wall*1e3:>9.1f}")
print(f"succeeded: {n - len(bad)} of {n}")
for r in bad[:3]:
    print(f"  failed: rc={r[1]} {r[2][:200]}")
print(f"targets: all succeed: {'met' if not bad else 'MISSED'}; p99 <= 5 x p50: "
      f"{p99 / p50:.2f} ({'met' if p99 <= 5 * p50 else 'MISSED'}); p50 = {p50 / base:.1f} x one alone")
sys.exit(1 if bad else 0)
EOP
