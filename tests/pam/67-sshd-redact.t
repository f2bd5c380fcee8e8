#!/bin/bash
# Redaction of env.secret values over a real sshd (shell/redact.c,
# form_is_transfer in shell/form.c): what a session prints to its caller
# has the value replaced (ssh CMD, ssh -tt), while file transfers carry a
# file that holds the value byte for byte, both ways: scp (SFTP and the
# original protocol), sftp, rsync and git over ssh.  The transfer forms
# are not redacted (docs/threat-model.md, "Redaction").
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
require_root
for c in sshd ssh scp sftp rsync git python3; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
have_userns || skip_all "no unprivileged user namespaces"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
pam_group "$AG"
tu_user "$U1" && usermod -aG "$AG" "$U1"
install -d -m 0755 "$T/home" "$T/proj" "$T/secrets"
install -d -o "$U1" -m 0700 "$T/home/$U1" "$T/proj/$U1"
secret="ssh-redact-$$-$RANDOM-value"
printf '%s\n' "$secret" > "$T/secrets/tok"
chown "root:$U1" "$T/secrets/tok"
chmod 0640 "$T/secrets/tok"
cat > "$T/aisb.conf" <<CONF
agents = {"$U1"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%"  timeout = 40 }
env { secret SBX_TOKEN { file = "$T/secrets/tok" } }
CONF
chmod 0644 "$T/aisb.conf"
test_shell
usermod -s "$TEST_SHELL" "$U1"
sandbox_ready "$U1"
ssh_key "$U1"
sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }
P=$T/proj/$U1

# The payload: random bytes around the value, twice, once on a line.
python3 - "$P/payload" "$secret" <<'PY'
import os, sys
s = sys.argv[2].encode()
d = os.urandom(300000) + s + os.urandom(300000) + b"\nkey=" + s + b"\n"
open(sys.argv[1], "wb").write(d)
PY
chown "$U1" "$P/payload"
cp "$P/payload" "$T/up"
want=$(sha256sum < "$P/payload")
same() {	# same NAME FILE: FILE has the payload's bytes
	is "$(sha256sum < "$2")" "$want" "$1: byte for byte"
}

# The witnesses: what a session prints is redacted over ssh.
out=$(sshc "$U1" -- 'printf "%s\n" "k=$SBX_TOKEN"; printf %s "$SBX_TOKEN" | sha256sum' 2>&1)
like "$out" "^k=\[aisb: redacted SBX_TOKEN\]$" "ssh CMD: the value printed becomes the marker"
like "$out" "$(printf %s "$secret" | sha256sum | cut -c1-64)" "... while the variable inside holds it"
sshc "$U1" -- 'cat /project/payload' > "$T/cat.out" 2>/dev/null
ok "ssh CMD: cat of the payload is redacted (the value is gone from it)" \
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(sys.argv[2].encode() in d or d.count(b"[aisb: redacted SBX_TOKEN]") != 2)' \
	"$T/cat.out" "$secret"
out=$(sshc "$U1" -tt -- 'echo "tty=$SBX_TOKEN"; tty' 2>&1 </dev/null)
like "$out" "tty=\[aisb: redacted SBX_TOKEN\]" "ssh -tt: the value becomes the marker"
like "$out" "/dev/pts/" "witness: it ran on a pty"
unlike "$out" "$secret" "... and the value never shows"

# The transfers: both ways, byte for byte.
SCP=(timeout 30 scp -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o BatchMode=yes -o LogLevel=ERROR -i "$T/key-$U1" -P "$SSHD_PORT")
rm -f "$T/got"
ok "scp (SFTP protocol) download" "${SCP[@]}" "$U1@127.0.0.1:/project/payload" "$T/got"
same "scp (SFTP protocol) download" "$T/got"
ok "scp (SFTP protocol) upload" "${SCP[@]}" "$T/up" "$U1@127.0.0.1:/project/up-scp"
same "scp (SFTP protocol) upload" "$P/up-scp"
rm -f "$T/got"
ok "scp -O (original protocol) download" "${SCP[@]}" -O "$U1@127.0.0.1:/project/payload" "$T/got"
same "scp -O download" "$T/got"
ok "scp -O upload" "${SCP[@]}" -O "$T/up" "$U1@127.0.0.1:/project/up-scp-o"
same "scp -O upload" "$P/up-scp-o"

rm -f "$T/got"
printf 'get /project/payload %s\nput %s /project/up-sftp\n' "$T/got" "$T/up" > "$T/batch"
sftp_batch() {
	timeout 30 sftp -F /dev/null -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR \
		-i "$T/key-$U1" -P "$SSHD_PORT" -b "$T/batch" "$U1@127.0.0.1" >/dev/null
}
ok "sftp get and put" sftp_batch
same "sftp get" "$T/got"
same "sftp put" "$P/up-sftp"

RSH="ssh ${SSH_OPTS[*]} -i $T/key-$U1 -p $SSHD_PORT"
rm -f "$T/got"
ok "rsync download" timeout 30 rsync -e "$RSH" "$U1@127.0.0.1:/project/payload" "$T/got"
same "rsync download" "$T/got"
ok "rsync upload" timeout 30 rsync -e "$RSH" "$T/up" "$U1@127.0.0.1:/project/up-rsync"
same "rsync upload" "$P/up-rsync"

# git over ssh: a repository inside whose file holds the value.
export GIT_SSH_COMMAND=$RSH GIT_CONFIG_NOSYSTEM=1 HOME=$T
git config --global user.email t@example.invalid
git config --global user.name t
git config --global init.defaultBranch main
git config --global safe.directory '*'
git init -q --bare "$P/repo.git"
git init -q "$T/seed"
cp "$P/payload" "$T/seed/payload"
printf 'token=%s\n' "$secret" > "$T/seed/env.txt"
git -C "$T/seed" add payload env.txt
git -C "$T/seed" commit -qm seed
git -C "$T/seed" push -q "$P/repo.git" main
chown -R "$U1" "$P/repo.git"
rm -rf "$T/clone"
ok "git clone over ssh" timeout 30 git clone -q "$U1@127.0.0.1:/project/repo.git" "$T/clone"
same "git clone" "$T/clone/payload"
is "$(cat "$T/clone/env.txt" 2>&1)" "token=$secret" "git clone: a text file with the value, unchanged"
printf 'more=%s\n' "$secret" > "$T/clone/more.txt"
git -C "$T/clone" add more.txt
git -C "$T/clone" commit -qm more
ok "git push over ssh" timeout 30 git -C "$T/clone" push -q origin main
is "$(git -C "$P/repo.git" show main:more.txt 2>&1)" "more=$secret" \
	"git push: the pushed file arrived unchanged"
is "$(git -C "$P/repo.git" fsck --no-progress 2>&1 | grep -c .)" 0 "git push: the repository is sound"

like "$(cat "$T/sshd.log")" "subsystem 'sftp'" "sshd served sftp as a subsystem (through the login shell)"
done_testing
