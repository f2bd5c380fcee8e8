#!/bin/bash
# shellcheck disable=SC2016 # the sessions expand their own variables
# aisb-shell --sessions and --end over a real sshd on loopback: two
# concurrent sessions of one agent (one with a pty) and one of another
# are listed with the right users, peers (SSH_CONNECTION) and ttys;
# --end ends one of them within a second (ssh gets status 124) and not
# the others.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
require_root
for c in sshd ssh ss python3; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
have_userns || skip_all "no unprivileged user namespaces"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
cat > "$T/aisb.conf" <<CONF
agents = {"@${AG}"}
home { path = "tmpfs" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%" }
CONF
chmod 0644 "$T/aisb.conf"
mkdir -p "$T/users.d"
test_shell
pam_group "$AG"
reg_ensure || skip_all "cannot make $REG_DIR"
install -d -m 0755 "$T/proj"
for u in "$U1" "$U2"; do
	tu_user "$u" && usermod -aG "$AG" -s "$TEST_SHELL" "$u"
	reg_forget "$u"
	install -d -o "$u" -m 0700 "$T/proj/$u"
done
sandbox_ready "$U1"
for u in "$U1" "$U2"; do ssh_key "$u"; done
sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }

# Three sessions: U1 twice (the second with a pty), U2 once.
sshc_bg "$T/a.err" "$U1" -- 'echo $AISB_SESSION > /project/a; exec sleep 300'
pa=$SSHC_PID
sshc_bg "$T/b.err" "$U1" -tt -- 'echo $AISB_SESSION > /project/b; exec sleep 300'
pb=$SSHC_PID
sshc_bg "$T/c.err" "$U2" -- 'echo $AISB_SESSION > /project/c; exec sleep 300'
pc=$SSHC_PID
for f in "$T/proj/$U1/a" "$T/proj/$U1/b" "$T/proj/$U2/c"; do
	for _ in $(seq 100); do [ -s "$f" ] && break; sleep 0.1; done
done
A=$(tr -d '\r' < "$T/proj/$U1/a") B=$(tr -d '\r' < "$T/proj/$U1/b") C=$(tr -d '\r' < "$T/proj/$U2/c")
ok "witness: the three sessions started ($A $B $C)" test -n "$A" -a -n "$B" -a -n "$C"

# What the kernel says: each ssh client's local address, by its user.
peers=$(ss -Htnp state established "( dport = :$SSHD_PORT )" | python3 -c '
import re, sys
for l in sys.stdin:
    f = l.split()
    m = re.search(r"pid=(\d+)", l)
    if not m:
        continue
    cmd = open("/proc/%s/cmdline" % m.group(1), "rb").read().split(b"\0")
    user = [a for a in cmd if a.endswith(b"@127.0.0.1")][0][:-10].decode()
    print(user, f[2])
' | sort)
S=$("$AISB_SHELL" --sessions --json)
got=$(reg_json_get "$S" "'\n'.join(sorted(s['user'] + ' ' + s['peer'] for s in d['sessions'] if s['id'] in ('$A', '$B', '$C')))")
is "$got" "$peers" "--sessions: two sessions of $U1 and one of $U2, each with its ssh client's address as peer"
sess() { reg_json_get "$S" "[s for s in d['sessions'] if s['id'] == '$1'][0]['$2']"; }
is "$(sess "$A" tty)" - "... the session without a pty: no tty"
like "$(sess "$B" tty)" '^/dev/pts/[0-9]+$' "... the one with a pty: its terminal"
out=$("$AISB_SHELL" --sessions)
like "$out" "$B +$U1 " "the text form has them too"
diag "$out"

# --end B: gone within a second, ssh sees 124, A and C live on.
ib=$(sess "$B" init)
t0=$(date +%s%N)
"$AISB_SHELL" --end "$B" >/dev/null
rc=$?
t1=$(date +%s%N)
wait "$pb"
st=$?
t2=$(date +%s%N)
is "$rc" 0 "--end ID"
ok "... in under 1 s ($(( (t1 - t0) / 1000000 )) ms)" test $(( (t1 - t0) / 1000000 )) -lt 1000
# (sshc_bg's own timeout would also say 124, after 60 s)
ok "... and its ssh client is done right after ($(( (t2 - t0) / 1000000 )) ms)" \
    test $(( (t2 - t0) / 1000000 )) -lt 5000
ok "... the sandbox's init is gone" test ! -e "/proc/$ib"
is "$st" 124 "... ssh -tt returns 124"
like "$("$AISB_SHELL" --egress "$B" --json)" '"how": "ended"' \
    "... its record says it was ended"
S=$("$AISB_SHELL" --sessions --json)
got=$(reg_json_get "$S" "' '.join(sorted(s['id'] for s in d['sessions'] if s['id'] in ('$A', '$B', '$C')))")
is "$got" "$(printf '%s\n' "$A" "$C" | sort | tr '\n' ' ' | sed 's/ $//')" "the other two still run"
ok "... and their ssh clients too" eval 'kill -0 "$pa" && kill -0 "$pc"'
"$AISB_SHELL" --end "$U1" >/dev/null
"$AISB_SHELL" --end "$U2" >/dev/null
wait "$pa"; sa=$?
wait "$pc"; sc=$?
is "$sa $sc" "124 124" "--end USER ends the rest"
done_testing
