#!/bin/bash
# tests/pam/sshd.sh: a real sshd on a loopback port for the pam tests
# (sourced after tap.sh and lib.sh).  Its own host key and config in $T,
# the shipped drop-in included, killed by PID at exit.

# free_port: a port in this part's range (25000-25999) nobody listens on.
free_port() {
	local p
	for p in $(shuf -i 25000-25999 -n 100); do
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

wait_port() {	# wait_port PORT: until something listens on it (5 s)
	local _
	for _ in $(seq 100); do
		ss -Htln "sport = :$1" | grep -q . && return 0
		sleep 0.05
	done
	return 1
}

# dropin: the shipped drop-in, with "Match Group ai-agents" naming this
# run's group $AG instead (two runs of the suite may overlap, and a group
# one run removes at exit must not change the other's).  Everything else
# is the shipped text.
dropin() {
	local src=$AISB_SRC/etc/ssh/sshd_config.d/aisb.conf
	sed "s/^Match Group ai-agents\$/Match Group $AG/" "$src" > "$T/aisb-dropin.conf"
	[ "$(diff "$src" "$T/aisb-dropin.conf" | grep -c '^>')" = 1 ] ||
		echo "# the drop-in has no single 'Match Group ai-agents' line" >&2
	echo "$T/aisb-dropin.conf"
}

# sshd_start: $T/sshd_config (+ $SSHD_EXTRA lines; $SSHD_SFTP for the
# sftp subsystem), port in $SSHD_PORT, pid in $SSHD_PID.
sshd_start() {
	mkdir -p /run/sshd	# privilege separation directory
	[ -f "$T/hostkey" ] || ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
	SSHD_PORT=$(free_port) || return 1
	cat > "$T/sshd_config" <<CONF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $T/hostkey
PidFile $T/sshd.pid
UsePAM yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes yes
LogLevel VERBOSE
Include $(dropin)
Subsystem sftp ${SSHD_SFTP:-/usr/lib/openssh/sftp-server}
${SSHD_EXTRA:-}
CONF
	/usr/sbin/sshd -t -f "$T/sshd_config" || return 1
	/usr/sbin/sshd -D -f "$T/sshd_config" -E "$T/sshd.log" &
	SSHD_PID=$!
	at_exit "kill $SSHD_PID"
	wait_port "$SSHD_PORT"
}

# ssh_key USER: a key pair $T/key-USER; an agent's public key goes to the
# root-owned /etc/ssh/authorized_keys/USER (the drop-in's AuthorizedKeysFile),
# anyone else's to ~/.ssh/authorized_keys.
ssh_key() {
	local u=$1 home
	ssh-keygen -q -t ed25519 -N '' -f "$T/key-$u"
	usermod -p '*' "$u"	# no password, but not "locked"
	if id -nG "$u" | grep -qw "$AG"; then
		# Shared with other runs: made when missing, removed at exit
		# only when empty (rmdir).
		install -d -m 0755 /etc/ssh/authorized_keys
		at_exit "rmdir /etc/ssh/authorized_keys"
		install -m 0644 "$T/key-$u.pub" "/etc/ssh/authorized_keys/$u"
		at_exit "rm -f /etc/ssh/authorized_keys/$u"
	else
		home=$(getent passwd "$u" | cut -d: -f6)
		install -d -o "$u" -m 0700 "$home/.ssh"
		install -o "$u" -m 0600 "$T/key-$u.pub" "$home/.ssh/authorized_keys"
	fi
}

# sshc USER [SSH-OPTIONS...] [-- COMMAND...]: the ssh client, key-only,
# no host key bookkeeping.
SSH_OPTS=(-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o BatchMode=yes -o LogLevel=ERROR -o ConnectTimeout=10)
_ssh_argv() {	# fills SSH_ARGV from USER [OPTS...] [-- CMD...]
	local u=$1 opts=() cmd=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ "${1:-}" = -- ] && { shift; cmd=("$@"); }
	SSH_ARGV=("${SSH_OPTS[@]}" -i "$T/key-$u" -p "$SSHD_PORT" "${opts[@]}"
		"$u@127.0.0.1" "${cmd[@]}")
}
sshc() {
	_ssh_argv "$@"
	timeout 60 ssh "${SSH_ARGV[@]}"
}
# sshc_bg ERRFILE USER ...: the same in the background, its PID (the
# timeout process, which passes signals on to ssh) in SSHC_PID and killed
# at exit.  (A function run with & is a subshell: killing that would leave
# ssh running.)
sshc_bg() {
	local err=$1; shift
	_ssh_argv "$@"
	timeout 60 ssh "${SSH_ARGV[@]}" 2>"$err" &
	SSHC_PID=$!
	at_exit "kill $SSHC_PID"
}

# test_shell: $T/bin/aisb-shell, a root-owned wrapper that runs the build
# tree's aisb-shell with the test policy $T/aisb.conf.  sshd and su exec
# the login shell without arguments of our choosing, and a test must not
# touch /etc/aisb; the wrapper keeps the login form (no arguments: argv[0]
# "-aisb-shell").  It is named aisb-shell and root-owned, so pam_aisb and
# --doctor accept it like the real one.
test_shell() {
	install -d -m 0755 "$T/bin"
	cat > "$T/bin/aisb-shell" <<SH
#!/bin/bash
[ \$# -eq 0 ] && exec -a -aisb-shell "$AISB_SHELL" --config "$T/aisb.conf"
exec "$AISB_SHELL" --config "$T/aisb.conf" "\$@"
SH
	chmod 0755 "$T/bin/aisb-shell"
	TEST_SHELL=$T/bin/aisb-shell
}

# sandbox_ready USER: can USER run a session?  Skips the whole script only
# while the sandbox itself is not built; any other failure is a failure.
sandbox_ready() {
	local out
	out=$(as "$1" "$TEST_SHELL" -c 'echo ready' 2>"$T/ready.err")
	[ "$out" = ready ] && return 0
	out="$out $(cat "$T/ready.err")"
	case "$out" in
	*"not built yet"*) skip_all "sandbox sessions not on main yet: $out" ;;
	esac
	fail "a session runs for $1" "$out"
	done_testing
	exit 1
}

# tmux_run NAME CMD: a detached tmux session on our own server socket.
tmux_run() {
	tmux -L "aisbt-pam-$$" new-session -d -s "$1" -x 200 -y 50 "$2"
	at_exit "tmux -L aisbt-pam-$$ kill-server"
}
tmux_keys() { tmux -L "aisbt-pam-$$" send-keys -t "$1" "${@:2}"; }
tmux_screen() { tmux -L "aisbt-pam-$$" capture-pane -p -t "$1"; }
# tmux_wait NAME REGEX: until the pane shows REGEX (10 s).
tmux_wait() {
	local _
	for _ in $(seq 200); do
		tmux_screen "$1" | grep -Eq -- "$2" && return 0
		sleep 0.05
	done
	return 1
}
