#!/bin/bash
# A long interactive session as a person or a terminal-driving harness
# has it: ssh (a real sshd on loopback, the agent's login shell a
# root-owned wrapper of aisb-shell adding --config) into the sandbox,
# tmux started inside, background jobs (a ticker, a periodic curl through
# the gate, a second tmux window), the client's window resized several
# times while it runs (each size seen inside by stty and tmux), then tmux
# detached with everything still running and a logout: nothing of the
# agent is left (no process, no gate, no mount in any namespace, no
# cgroup).  Before that, single commands over the same sshd: Claude Code
# style, 100 KB, quotes and UTF-8.  The client side is a host tmux driving `ssh -tt`.
# WL_LONG (seconds, default 90; 30 in the ASan build) is how long it runs.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip_all "tmux missing (tests/deps.sh test)"
[ -x /usr/sbin/sshd ] || skip_all "sshd missing (tests/deps.sh test)"
# Under ASan (make asan) 30 s: the same steps, resizes and checks; the
# 90 s run is make check's.
if san_build; then LONG=${WL_LONG:-30}; else LONG=${WL_LONG:-90}; fi
wl_setup 5
CONF=$(wl_conf base)

# The login shell: named aisb-shell, root-owned, adds --config.
install -d -m 0755 "$TOP/bin"
cat > "$TOP/bin/aisb-shell" <<SH
#!/bin/bash
[ \$# -eq 0 ] && exec -a -aisb-shell "$AISB_SHELL" --config "$CONF"
exec "$AISB_SHELL" --config "$CONF" "\$@"
SH
chmod 0755 "$TOP/bin/aisb-shell"
# No PAM in this sshd: the account must not be locked.
usermod -p '*' -s "$TOP/bin/aisb-shell" "$U"
install -d -m 0700 -o "$U" -g "$U" "/home/$U/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$TOP/conf/client" || skip_all "ssh-keygen failed"
install -m 0600 -o "$U" "$TOP/conf/client.pub" "/home/$U/.ssh/authorized_keys"
ssh-keygen -q -t ed25519 -N '' -f "$TOP/conf/hostkey"
port=
for p in $(shuf -i 28000-28999 -n 50); do
	ss -Htln "sport = :$p" | grep -q . || { port=$p; break; }
done
[ -n "$port" ] || skip_all "no free port in 28000-28999"
cat > "$TOP/conf/sshd_config" <<C
Port $port
ListenAddress 127.0.0.1
HostKey $TOP/conf/hostkey
PidFile none
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile /home/%u/.ssh/authorized_keys
AcceptEnv LANG LC_*
C
mkdir -p /run/sshd
/usr/sbin/sshd -D -f "$TOP/conf/sshd_config" -E "$TOP/sshd.log" &
SSHD=$!
at_exit "kill $SSHD"
for _ in $(seq 100); do ss -Htln "sport = :$port" | grep -q . && break; sleep 0.05; done

# --- single commands over ssh (sshd runs LOGIN-SHELL -c CMD)
sshc() {
	ssh -i "$TOP/conf/client" -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes \
	    -p "$port" "$U@127.0.0.1" "$@" </dev/null 2>&1
}
is "$(sshc 'bash -l -c "echo \$SHELL; curl -sS --max-time 10 http://origin.test/"')" \
	"/bin/bash
aisb-origin ok" "ssh HOST 'bash -l -c \"cmd\"': in the sandbox, the network works"
big=$(head -c 76000 /dev/urandom | base64 -w0 | head -c 100000)
is "$(sshc "v='$big'; printf %s \"\$v\" | sha256sum | cut -d' ' -f1")" \
	"$(printf %s "$big" | sha256sum | cut -d' ' -f1)" "ssh HOST with a 100 KB command"
is "$(sshc "printf '%s|' 'it'\\''s' \"é ✓\"; echo")" "it's|é ✓|" \
	"ssh HOST with quotes and UTF-8 in the command"

# The client: a host tmux (its own socket) whose pane runs ssh -tt.
TS=wrk$$
at_exit "tmux -L $TS kill-server 2>/dev/null"
T() { tmux -L "$TS" "$@"; }
screen() { T capture-pane -p -J 2>/dev/null; }
# waitfor REGEX [SECONDS]: until the client's screen shows REGEX.
waitfor() {
	local i
	for i in $(seq $((${2:-10} * 10))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# run CMD: type CMD and Enter, then wait for its end marker; the marker
# is typed split ('"'"'%s'"'"'), so only the command's output shows it joined.
n=0
run() {
	n=$((n + 1))
	T send-keys -l "$1; echo \"@@\"done$n" && T send-keys Enter
	waitfor "^@@done$n\$" "${2:-10}"
}
T -f /dev/null new-session -d -x 120 -y 40 \
	"ssh -tt -i $TOP/conf/client -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p $port $U@127.0.0.1"
T set-option -g remain-on-exit on

ok "ssh login lands in the sandbox" waitfor "$U@aisb:/project" 15
run 'echo "shell=$SHELL login=$(shopt -q login_shell && echo yes)"; tty'
like "$(screen)" "shell=/bin/bash login=yes" "a login bash, SHELL is bash"
like "$(screen)" "^/dev/pts/[0-9]+" "... on a terminal of the sandbox"

# --- tmux inside, with background jobs
T send-keys -l 'tmux new -s work' && T send-keys Enter
ok "tmux starts inside the sandbox" waitfor '\[work\] 0:' 10
run 'sleep 3600 & (while :; do date +%s >> /tmp/tick; sleep 1; done) & (while :; do curl -sS --max-time 5 http://origin.test/ >> /tmp/net; sleep 5; done) & tmux new-window -d -n second "while :; do date >> /tmp/second; sleep 2; done"; jobs -p | wc -l'
like "$(screen)" "^3$" "three background jobs and a second tmux window started"

# --- it runs; the window is resized now and then
sizes=("100 30" "132 43" "80 24" "120 40")
start=$SECONDS
i=0
resized_ok=0
while [ $((SECONDS - start)) -lt "$LONG" ]; do
	read -r w h <<<"${sizes[$((i % ${#sizes[@]}))]}"
	T resize-window -x "$w" -y "$h"
	sleep 1
	T send-keys C-l
	# The inner tmux status line takes one row.
	run 'echo "size=$(stty size) tmux=$(tmux display -p "#{window_width}x#{window_height}")"' &&
	    screen | grep -q "size=$((h - 1)) $w tmux=${w}x$((h - 1))" &&
	    resized_ok=$((resized_ok + 1))
	i=$((i + 1))
	sleep $(( LONG / 6 > 1 ? LONG / 6 : 1 ))
done
is "$resized_ok" "$i" "each of $i window resizes reached the shell inside tmux (stty size, tmux)"
run 'echo "ticks=$(wc -l < /tmp/tick) net=$(grep -c "aisb-origin ok" /tmp/net) second=$(wc -l < /tmp/second) jobs=$(jobs -rp | wc -l)"' 15
out=$(screen | grep '^ticks=')
ticks=$(echo "$out" | sed -n 's/.*ticks=\([0-9]*\).*/\1/p')
nets=$(echo "$out" | sed -n 's/.*net=\([0-9]*\).*/\1/p')
ok "the ticker ran all along ($ticks ticks in ${LONG}+ s)" test "${ticks:-0}" -ge $((LONG - 10))
ok "the periodic curl through the gate kept working ($nets answers)" test "${nets:-0}" -ge $((LONG / 5 - 3))
like "$out" "second=[1-9][0-9]* jobs=3" "the second window's loop ran, all three jobs still running"
pids=$(pgrep -u "$U" | wc -l)
ok "while it runs the agent has processes on the host side ($pids)" test "$pids" -gt 5
mnt=$(grep -l "$TOP/$U" /proc/[0-9]*/mountinfo 2>/dev/null | wc -l)
ok "... and the sandbox's mount namespace holds the project ($mnt processes)" test "$mnt" -gt 0

# --- detach tmux (its server and the jobs keep running), log out
T send-keys C-b d
ok "tmux detached, the login shell is back" waitfor '\[detached' 10
run 'tmux ls | wc -l'
T send-keys -l 'logout' && T send-keys Enter
# The ssh client itself is the witness: it exits when the connection
# ends.  (Its pane's "Pane is dead" line is not a reliable witness: the
# pane may be gone with its window.)  Generous: at logout the session
# stops its gate and tears down its cgroup, slow in an ASan build.
ssh_gone=no
for _ in $(seq 400); do
	pgrep -f -- "^ssh -tt -i $TOP/conf/client" >/dev/null || { ssh_gone=yes; break; }
	sleep 0.1
done
if [ "$ssh_gone" = yes ]; then
	pass "logout ends the ssh connection"
else
	fail "logout ends the ssh connection" "screen: $(screen | tail -n 5 | tr '\n' '|')"
fi
left=
for _ in $(seq 50); do
	left=$(pgrep -u "$U" -a)
	[ -z "$left" ] && break
	sleep 0.1
done
is "$left" "" "nothing of the agent is left: no tmux server, job, shell or gate"
mnt=$(grep -l "$TOP/$U" /proc/[0-9]*/mountinfo 2>/dev/null)
is "$mnt" "" "no mount of the project left in any namespace"
cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -user "$U" 2>/dev/null)
is "$cg" "" "no cgroup of the agent left"
like "$(cat "$TOP/sshd.log")" "Disconnected from user $U" "sshd saw a normal disconnect"
done_testing
