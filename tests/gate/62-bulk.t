#!/bin/bash
# Relay pipes (gate/conn.c dir_pipe, big_grow, pipe_idle): a relay
# direction that has carried GATE_BULK_AFTER (1 MiB) gets a 1 MiB pipe,
# at most GATE_BULK_PIPES (4) gate-wide, and gives it back once it has
# been quiet for GATE_BULK_IDLE_MS (2 s); after GATE_PIPE_IDLE_MS (10 s)
# of quiet the pipes are closed, and made again when bytes come.  An
# open tunnel that never carried a byte holds no pipe.  The gate's pipes are looked at
# from outside: pidfd_getfd(2) on each pipe the gate holds, then
# F_GETPIPE_SZ.  Every byte is checked on the way.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

# big_pipes: "BIG ALL", how many distinct pipes the gate holds of at
# least 1 MiB, and in all.
cat > "$T/pipes.py" <<'P'
import ctypes, fcntl, os, sys
pid = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(pid)
seen, big = set(), 0
for name in os.listdir("/proc/%d/fd" % pid):
    try:
        link = os.readlink("/proc/%d/fd/%s" % (pid, name))
    except OSError:
        continue
    if not link.startswith("pipe:") or link in seen:
        continue
    seen.add(link)
    fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd
    if fd < 0:
        sys.exit("pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
    if fcntl.fcntl(fd, 1032) >= 1 << 20:  # F_GETPIPE_SZ
        big += 1
    os.close(fd)
print(big, len(seen))
P
big_pipes() { python3 "$T/pipes.py" "$GATE_PID" | cut -d' ' -f1; }
all_pipes() { python3 "$T/pipes.py" "$GATE_PID" | cut -d' ' -f2; }
# until_none FN TENTHS: poll FN until it says 0, at most TENTHS x 0.1 s;
# prints its last answer.
until_none() {
	local n=9
	for _ in $(seq 1 "$2"); do
		n=$("$1")
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	echo "$n"
}
# next WANT NAME: the client's next line.
next() {
	local line=''
	read -r -t 60 line <&"${CL[0]}"
	is "$line" "$1" "$2"
}

# The client: N CONNECT tunnels each GET /bytes/SIZE, read 2 MiB and
# wait for a line on stdin ("the gate is looked at"); then read the
# rest.  All but the first tunnel close; the first waits for a second
# line, then fetches SIZE again over the same (idle, shrunk) tunnel.
cat > "$T/client.py" <<'C'
import hashlib, socket, sys, threading
n, size = int(sys.argv[1]), int(sys.argv[2])
def pattern(k):
    block = bytes(range(256)) * 256
    return (block * (k // len(block) + 1))[:k]
want = hashlib.sha256(pattern(size)).hexdigest()
def tunnel():
    s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
    s.sendall(b"CONNECT origin.tgat.test:23080 HTTP/1.1\r\nHost: origin.tgat.test:23080\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 200"), head
    return s
def get(s, pause=None):
    s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: origin.tgat.test\r\n\r\n" % size)
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536)
    body = buf.split(b"\r\n\r\n", 1)[1]
    h = hashlib.sha256()
    h.update(body)
    got = len(body)
    while got < size:
        if pause and got >= 2 << 20:
            pause()
            pause = None
        b = s.recv(min(1 << 20, size - got))
        if not b:
            break
        h.update(b)
        got += len(b)
    return h.hexdigest() == want and got == size
socks = [tunnel() for _ in range(n)]
ready = threading.Barrier(n + 1)
go = threading.Event()
ok = [False] * n
def pause():
    ready.wait()
    go.wait()
def run(i):
    ok[i] = get(socks[i], pause)
ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
for t in ts: t.start()
ready.wait()
print("paused", flush=True); sys.stdin.readline()
go.set()
for t in ts: t.join()
print("first", sum(ok), flush=True)
for s in socks[1:]: s.close()
print("idle", flush=True); sys.stdin.readline()
print("again", "ok" if get(socks[0]) else "BAD", flush=True)
sys.stdin.readline()
print("third", "ok" if get(socks[0]) else "BAD", flush=True)
fresh = [tunnel() for _ in range(3)]
print("fresh", flush=True)
sys.stdin.readline()
C

size=$((24 << 20))
coproc CL { gin python3 "$T/client.py" 6 "$size" 2>&1; }
next "paused" "6 tunnels, each 2 MiB into a 24 MiB download"
is "$(big_pipes)" "4" "4 of the 6 bulk directions got a 1 MiB pipe (GATE_BULK_PIPES), no more"
echo go >&"${CL[1]}"
next "first 6" "all 6 downloads complete, byte-identical"
next "idle" "5 tunnels closed, one kept open and quiet"
is "$(until_none big_pipes 50)" "0" "the quiet tunnel gives its 1 MiB pipe back within GATE_BULK_IDLE_MS"
echo go >&"${CL[1]}"
next "again ok" "the same tunnel, shrunk, carries another 24 MiB byte-identical"
is "$(until_none all_pipes 150)" "0" "after GATE_PIPE_IDLE_MS of quiet the open tunnel holds no pipe"
echo go >&"${CL[1]}"
next "third ok" "... and carries a third 24 MiB byte-identical through new pipes"
next "fresh" "3 new tunnels open (200 received), no byte through them yet"
n=$(all_pipes)
is "$n" "2" "tunnels that carried nothing hold no pipe: only the busy tunnel's two"
echo go >&"${CL[1]}"
wait "$CL_PID" 2>/dev/null
# The gate writes the record when it sees the client's end: poll for it.
kept() {
	grep -oE "close proxy name=origin.tgat.test port=23080 address=127.0.0.2 up=[0-9]+ down=[0-9]+" "$T/gate.log" |
	    awk -F'down=' -v size="$size" '$2 > 3 * size' | wc -l
}
for _ in $(seq 1 50); do
	[ "$(kept)" = 1 ] && break
	sleep 0.1
done
is "$(kept)" "1" "the kept tunnel's close record counts all three downloads"
# An open tunnel that carries nothing costs its fixed struct: the head
# buffers (16 and 17 KiB) go once the 200 is out (gate/conn.c
# step_tunnel).  Measured as what the gate has allocated (VmData: its
# heap and anonymous mappings, touched or not), which 300 tunnels that
# kept their buffers would grow by 300 x 33 KiB; page-touch noise
# (RssAnon) and a settling time do not enter.
data() { awk '/^VmData:/ {print $2}' "/proc/$GATE_PID/status"; }
cat > "$T/hold.py" <<'H'
import socket, sys
ts = []
for _ in range(int(sys.argv[1])):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=30)
    s.sendall(b"CONNECT origin.tgat.test:23080 HTTP/1.1\r\nHost: origin.tgat.test:23080\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 200"), head
    ts.append(s)
print("held", len(ts), flush=True)
sys.stdin.readline()
H
d0=$(data)
coproc HOLD { gin python3 "$T/hold.py" 300 2>&1; }
read -r -t 60 line <&"${HOLD[0]}"
is "$line" "held 300" "300 CONNECT tunnels open, idle"
per=$(awk -v a="$(data)" -v b="$d0" 'BEGIN {printf "%.1f", (a - b) / 300}')
if ldd "$AISB_GATE" 2>/dev/null | grep -q libasan; then
	skip "an idle tunnel holds under 4 KiB of the gate's memory" \
	    "an ASan build's own allocator (shadow, redzones, quarantine: $per KiB here) is not the gate's"
else
	ok "an idle tunnel holds under 4 KiB of the gate's memory ($per KiB allocated each)" \
		awk -v p="$per" 'BEGIN {exit !(p < 4)}'
fi
echo go >&"${HOLD[1]}"
wait "$HOLD_PID" 2>/dev/null
ok "the gate is still running" gt_gate_alive
done_testing
