#!/bin/bash
# The terminal, attacked and used from inside a session that runs in a
# real terminal (tmux): TIOCSTI/TIOCLINUX injection never reaches the
# caller's shell (fresh pty + seccomp; the same injection outside the
# sandbox does, on this host), job control works in bash -i (Ctrl-Z, fg,
# Ctrl-C), a window resize reaches the inside, the caller's terminal is
# restored when the session ends, the exit status comes back.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck --helpers
exec </dev/null
sess_require
command -v tmux >/dev/null || skip_all "tmux not installed"
u=tlck3
sess_user "$u"
conf=$(sess_conf tty 'env { pass = {"TERM"} }')
sock=lck$$
pwn=/tmp/PWNED-lck$$
pwn2=/tmp/PWNED2-lck$$
rm -f "$pwn" "$pwn2"
at_exit "rm -f '$pwn' '$pwn2'"

tm() { as "$u" tmux -L "$sock" "$@"; }
pane() { tm capture-pane -p -J -S -200 -t t; }
# pane_wait REGEX [SECONDS]: until the pane shows REGEX.
pane_wait() {
	local i n=$(( ${2:-5} * 10 ))
	[ "${FUNCNAME[1]}" = press ] && n=10
	for ((i = 0; i < n; i++)); do
		pane | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	diag "pane did not show '$1'; it shows:"
	pane | grep -v '^$' | tail -n 15 | sed 's/^/#   /'
	return 1
}
# last_wait REGEX: until the last non-empty line of the pane matches.
last_wait() {
	local i
	for ((i = 0; i < 50; i++)); do
		pane | grep -v '^$' | tail -n 1 | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	diag "last line is not '$1':"
	pane | grep -v '^$' | tail -n 5 | sed 's/^/#   /'
	return 1
}
# type TEXT: literal text then Enter.
typein() { tm send-keys -t t -l "$1"; tm send-keys -t t Enter; }
# press KEY REGEX: KEY until REGEX shows (the job may not be in the
# foreground yet: a key then reaches the shell, which ignores it).
press() {
	local i
	for ((i = 0; i < 15; i++)); do
		tm send-keys -t t "$1"
		"${3:-pane_wait}" "$2" 1 >/dev/null 2>&1 && return 0
	done
	"${3:-pane_wait}" "$2" 1
}

tm -f /dev/null new-session -d -s t -x 100 -y 30 \
    "env PS1='OUT> ' bash --norc --noprofile -i" || skip_all "tmux cannot start"
at_exit "as $u tmux -L $sock kill-server"
tm set -g status off
ok "the caller's shell runs in tmux" pane_wait 'OUT>'

# The twin first: outside the sandbox, TIOCSTI into one's own terminal
# runs a command in the shell that reads it (legacy_tiocsti=1 hosts).
typein "$SESS_TOP/$u/project/aisb-try tiocsti \$'touch $pwn2\\n'"
pane_wait '^tiocsti [A-Za-z]+' >/dev/null
# exists FILE: FILE appears within 5 s.
exists() {
	local i
	for ((i = 0; i < 50; i++)); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}
if pane | grep -q '^tiocsti ok'; then
	ok "host twin: TIOCSTI outside the sandbox injects a command that runs" \
	    exists "$pwn2"
else
	skip "host twin: TIOCSTI injection outside" "this kernel refuses TIOCSTI (dev.tty.legacy_tiocsti=0)"
fi
typein clear

# Into the sandbox.
typein "$AISB_SHELL --config $conf"
# (The login shell's bashrc sets its own prompt: set ours.)
typein "PS1='IN> '; echo \"in-session:\${AISB_SESSION:+yes}\""
if ok "an interactive session starts in the terminal" pane_wait '^in-session:yes$'; then
	:
else
	fail "the session is running in the terminal (the rest would test the caller's shell)"
	done_testing
	exit
fi
host_dev=$(stat -c %d "$(tm display -p -t t '#{pane_tty}')")
typein 'stat -L -c "tty-dev:%d" /proc/self/fd/0'
own_pty() { pane_wait '^tty-dev:[0-9]+$' && ! pane | grep -q "^tty-dev:$host_dev$"; }
ok "inside: the controlling tty is the sandbox's own pty, not the caller's" own_pty
typein "/project/aisb-try tiocsti \$'touch $pwn\\n'"
ok "inside: TIOCSTI is denied" pane_wait 'tiocsti EPERM'
typein "/project/aisb-try tiocsti_hibits \$'touch $pwn\\n'"
ok "inside: TIOCSTI with garbage high bits is denied" pane_wait 'tiocsti_hibits EPERM'
typein "/project/aisb-try tioclinux"
ok "inside: TIOCLINUX is denied" pane_wait 'tioclinux EPERM'

# Job control.
typein "sleep 100"
sleep 0.3
ok "Ctrl-Z suspends the foreground job" press C-z 'Stopped'
typein "fg"
ok "fg brings it back" pane_wait '^sleep 100$'
ok "Ctrl-C reaches the foreground job" press C-c '^IN> $' last_wait
typein 'echo "jc-$((40+2)) jobs=$(jobs | wc -l)"'
ok "the shell is back with no job left" pane_wait '^jc-42 jobs=0$'

# Window size: the initial one, then a resize.
typein 'stty size'
ok "inside: the terminal has the caller's size" pane_wait '^30 100$'
tm resize-window -t t -x 120 -y 40
sleep 0.5
typein 'stty size; echo "cols=$COLUMNS"'
ok "inside: a resize of the caller's terminal reaches the sandbox" pane_wait '^40 120$'
ok "inside: the shell sees the new \$COLUMNS" pane_wait '^cols=120$'

typein 'exit 7'
ok "the session ends back in the caller's shell" last_wait '^OUT> $'
typein 'echo "rc=$?"; stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo|isig)" | sort | tr "\n" " "; echo'
ok "the exit status comes back (7)" pane_wait '^rc=7$'
ok "the caller's terminal is restored (icanon echo isig)" pane_wait '^echo icanon isig $'
sleep 0.5
ok "the caller's shell never ran the injected command" test ! -e "$pwn"
unlike "$(pane)" "OUT> touch $pwn" "nothing was typed into the caller's shell"
done_testing
