#!/usr/bin/python3
# bench/startab.py: A/B of two aisb-shell builds' start-up on a loaded
# machine.  Runs `unshare ... true`, A and B alternately, one run each in
# turn (the order of A and B flips every pair), as USER through the same
# setpriv wrapper as bench/startup.sh, and compares them pairwise: the
# median of B-A and how often B was faster say more than two medians
# measured minutes apart.  CPU is the children's rusage (aisb-shell, the
# gate it reaps, bash), which the load of other work hardly moves.
#
#   bench/startab.py USER CONFIG A_BIN B_BIN [N]
#
# USER must be able to run both (a user created as in bench/startup.sh;
# CONFIG as there, e.g. network.mode = "gated" or "none").  Each build
# finds its gate at BIN/../libexec/aisb/aisb-gate.
import pwd
import resource
import statistics as st
import subprocess
import sys
import time

if len(sys.argv) < 5:
    sys.exit("usage: bench/startab.py USER CONFIG A_BIN B_BIN [N]")
user, conf, abin, bbin = sys.argv[1:5]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 100
pw = pwd.getpwnam(user)
wrap = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
        "--clear-groups", "env", "-i", "PATH=/usr/bin:/bin", "HOME=/"]
cmds = {
    "U": wrap + ["unshare", "-U", "-m", "-p", "-n", "-i", "-u", "-C", "-f", "true"],
    "A": wrap + [abin, "--config", conf, "-c", "true"],
    "B": wrap + [bbin, "--config", conf, "-c", "true"],
}
wall = {k: [] for k in cmds}
cpu = {k: [] for k in cmds}


def run(k):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmds[k], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd="/")
    t = (time.perf_counter() - t0) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"startab: {k} failed ({p.returncode}): {p.stderr.decode()[-300:]}")
    wall[k].append(t)
    cpu[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)


for _ in range(3):
    run("A")
    run("B")
for k in cpu:
    wall[k].clear()
    cpu[k].clear()
for i in range(n):
    for k in ("U", "A", "B") if i % 2 == 0 else ("U", "B", "A"):
        run(k)
m = st.median
d = [b - a for a, b in zip(wall["A"], wall["B"])]
u = m(wall["U"])
print(f"{'':<8} {'median ms':>10} {'p25 ms':>8} {'x unshare':>10} {'CPU ms':>8}")
for k, name in (("U", "unshare"), ("A", "A"), ("B", "B")):
    w = sorted(wall[k])
    print(f"{name:<8} {m(w):>10.2f} {w[len(w) // 4]:>8.2f} {m(w) / u:>10.2f} {st.mean(cpu[k]):>8.2f}")
print(f"B - A: median {m(d):+.2f} ms over {n} pairs, B faster in {sum(x < 0 for x in d)}; "
      f"CPU {st.mean(cpu['B']) - st.mean(cpu['A']):+.2f} ms")
