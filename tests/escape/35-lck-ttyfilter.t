#!/bin/bash
# What the sandbox writes to the caller's terminal, through a real
# session in a real terminal (tmux, whose pipe-pane records every byte
# that reaches it): an OSC 52 clipboard write, a CSI 21 t title report
# and a DECRQSS query from inside never reach the caller's terminal, and
# tmux's clipboard stays empty; the witness: with terminal.filter =
# false the same bytes reach it and tmux takes the clipboard.  vim (and
# the answer to its DA2 query), less, tmux inside and bash readline
# still work.  A terminal answer to the session's last query does not
# land in the caller's shell; the host twin: the same query outside
# leaves its answer on the caller's command line.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck
exec </dev/null
sess_require
command -v tmux >/dev/null || skip_all "tmux not installed"
command -v vim >/dev/null || skip_all "vim not installed"
command -v less >/dev/null || skip_all "less not installed"
u=tlck6
sess_user "$u"
conf=$(sess_conf ttyf 'env { pass = {"TERM"} }')
conf_off=$(sess_conf ttyf-off 'env { pass = {"TERM"} }' 'terminal { filter = false }')
proj=$SESS_TOP/$u/project
cap=$SESS_TOP/$u/caller.bytes
sock=lckf$$
seq 1 500 > "$proj/long.txt"
chown "$u:" "$proj/long.txt"

tm() { as "$u" tmux -L "$sock" "$@"; }
pane() { tm capture-pane -p -J -S -200 -t t; }
pane_wait() {
	local i n=$(( ${2:-5} * 10 ))
	for ((i = 0; i < n; i++)); do
		pane | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	diag "pane did not show '$1'; it shows:"
	pane | grep -v '^$' | tail -n 15 | sed 's/^/#   /'
	return 1
}
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
typein() { tm send-keys -t t -l "$1"; tm send-keys -t t Enter; }
# got BYTES: the caller's terminal received BYTES (a fixed string).
got() { grep -aqF -- "$1" "$cap"; }
buffers() { tm list-buffers -F '#{buffer_sample}' 2>/dev/null; }

tm -f /dev/null new-session -d -s t -x 100 -y 30 \
    "env TERM=xterm-256color PS1='OUT> ' bash --norc --noprofile -i" ||
    skip_all "tmux cannot start"
at_exit "as $u tmux -L $sock kill-server"
tm set -g status off
tm set -g set-clipboard on
ok "the caller's shell runs in tmux" pane_wait 'OUT>'
tm pipe-pane -t t -o "cat >> '$cap'"

attack() { # the three sequences, with the clipboard text $1
	typein "printf '\\033]52;c;%s\\a' \$(printf $1 | base64); printf '\\033[21t\\033P\$q m\\033\\\\'; echo attack-done"
}

# The witness first: the filter off.
typein "$AISB_SHELL --config $conf_off"
typein "PS1='OFF> '; echo \"in-session:\${AISB_SESSION:+yes}\""
ok "a session with terminal.filter = false starts" pane_wait '^in-session:yes$'
attack PWNCLIP1
pane_wait attack-done >/dev/null
sleep 0.3
ok "filter off (witness): OSC 52 reaches the caller's terminal" got $'\e]52;c;'"$(printf PWNCLIP1 | base64)"
ok "filter off (witness): CSI 21 t reaches it" got $'\e[21t'
ok "filter off (witness): DECRQSS reaches it" got $'\eP$q m\e\\'
like "$(buffers)" PWNCLIP1 "filter off (witness): tmux took the clipboard write"
typein 'exit'
ok "back in the caller's shell" last_wait '^OUT> $'
tm delete-buffer 2>/dev/null
: > "$cap"

# The filter on (the default).
typein "$AISB_SHELL --config $conf"
typein "PS1='IN> '; echo \"in-session:\${AISB_SESSION:+yes}\""
if ! ok "an interactive session starts in the terminal" pane_wait '^in-session:yes$'; then
	done_testing
	exit
fi
attack PWNCLIP2
ok "filter on: the session ran the attack" pane_wait '^attack-done$'
sleep 0.3
ok "filter on: no OSC 52 reaches the caller's terminal" ! got $'\e]52'
ok "filter on: no CSI 21 t" ! got $'\e[21t'
ok "filter on: no DECRQSS (no DCS at all)" ! got $'\eP'
unlike "$(buffers)" PWNCLIP2 "filter on: tmux's clipboard is untouched"
ok "filter on: the text around them does" got $'\nattack-done\r'

# bash readline: cursor keys, history.
typein 'clear'
tm send-keys -t t -l 'echo rl-ab'
tm send-keys -t t Left
tm send-keys -t t -l X
tm send-keys -t t Enter
ok "readline: a cursor key edits the line" pane_wait '^rl-aXb$'
tm send-keys -t t Up
tm send-keys -t t Enter
twice() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(pane | grep -c '^rl-aXb$')" -ge 2 ] && return 0
		sleep 0.1
	done
	return 1
}
ok "readline: history (Up, Enter runs it again)" twice

# vim: it draws, edits, writes, and gets the answer to its DA2 query.
typein 'clear; vim -u NONE -N -i NONE /project/notes.txt'
ok "vim draws its screen" pane_wait '^~ *$'
sleep 0.5
tm send-keys -t t -l 'ihello-vim'
tm send-keys -t t Escape
typein ":call writefile([v:termresponse], '/project/tr')"
typein ':wq'
ok "vim exits to the shell" last_wait '^IN> $'
is "$(cat "$proj/notes.txt" 2>/dev/null)" hello-vim "vim wrote the file"
like "$(cat -v "$proj/tr" 2>/dev/null)" '^\^\[\[>[0-9;]+c$' \
    "vim got the terminal's answer to DA2 through the filter"
ok "vim's alternate screen reached the terminal" got $'\e[?1049h'

# less: pages, jumps, quits.
typein 'clear; less /project/long.txt'
ok "less shows the file" pane_wait '^1$'
tm send-keys -t t G
ok "less jumps to the end" pane_wait '^500$'
tm send-keys -t t q
ok "less quits back to the shell" last_wait '^IN> $'

# tmux inside the session.
typein 'clear; tmux -L inner -f /dev/null new-session'
ok "tmux inside draws its status line" pane_wait '\[0\] 0:'
typein 'echo inner-$((6*7))'
ok "tmux inside runs a command" pane_wait '^inner-42'
typein 'exit'
ok "tmux inside exits to the session's shell" last_wait '^IN> $'

# The session's last words are a query (DA); tmux answers at once.
typein 'exit'
ok "the session ends back in the caller's shell" last_wait '^OUT> $'
typein "$AISB_SHELL --config $conf -c 'printf \"\\033[c\"'"
sleep 1
# What counts is the caller's command line after its prompt: an answer
# that comes while the inside still runs goes to the sandbox's own pty,
# whose echo may show it as text before the prompt (output, not input).
ok "a terminal answer to the session's last query does not land in the caller's shell" \
    last_wait 'OUT> $'
# The host twin: the same query from the caller's own shell.
typein "printf '\\033[c'"
sleep 1
ok "host twin: the same query outside leaves its answer on the command line" \
    last_wait '^OUT> .*c$'
tm send-keys -t t C-u
typein 'stty -a | tr " ;" "\n\n" | grep -Ex -- "-?(icanon|echo|isig)" | sort | tr "\n" " "; echo'
ok "the caller's terminal is restored (icanon echo isig)" pane_wait '^echo icanon isig $'
done_testing
