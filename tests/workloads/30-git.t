#!/bin/bash
# git from inside gated sessions, nothing configured inside but what an
# agent's own commands do: clone, commit, push and fetch over https (git
# smart HTTP in the test internet, the test CA trusted through the bundle
# the policy binds) and over ssh to an allowlisted git.test:22 (a real
# sshd in the test internet; the key passed as an env.secret and loaded
# into an ssh-agent inside; known_hosts provisioned in the agent's
# persistent home by the admin, as one would for a real code host).  No
# proxy or ssh settings inside.  The same operations to names or ports
# the policy does not allow fail at once, saying so.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
command -v ssh-agent >/dev/null || skip_all "ssh missing (tests/deps.sh test)"
[ -x /usr/sbin/sshd ] || skip_all "sshd missing (tests/deps.sh test)"
wl_setup 3
internet_git_repo "$WN" r1 || skip_all "cannot make the test repository"
# The sshd of the test internet runs the server side as $U on the host:
# no PAM there, so the account must not be locked; its git must accept
# the root-owned repository.
usermod -p '*' "$U"
printf '[safe]\n\tdirectory = *\n' > "/home/$U/.gitconfig"
chown "$U:" "/home/$U/.gitconfig"
ssh-keygen -q -t ed25519 -N '' -C "aisb-test-$U" -f "$TOP/conf/id" ||
	skip_all "ssh-keygen failed"
internet_sshd "$WN" "$TOP/conf/id.pub" || skip_all "the test internet's sshd did not start"
# The secret: owned by the agent, no access for others (aisb.conf(5)).
chown "$U:" "$TOP/conf/id"
chmod 0600 "$TOP/conf/id"
# The agent's persistent home, with the code host's key as an admin
# would put it there.
install -d -m 0700 -o "$U" -g "$U" "$TOP/$U/home" "$TOP/$U/home/.ssh"
install -m 0644 -o "$U" -g "$U" "$INET_SSH_KNOWN_HOSTS" "$TOP/$U/home/.ssh/known_hosts"
CONF=$(wl_conf base "home { path = \"$TOP/%u/home\" }" \
	"env { secret GIT_SSH_KEY { file = \"$TOP/conf/id\" } }")
BARE=$INET_DIR/git/r1.git
hostgit() { git -c safe.directory='*' -C "$BARE" "$@"; }
# The https side (git http-backend) runs as root, the ssh side as $U:
# objects either writes must stay writable for the other.
hostgit config core.sharedRepository 0666
ident='git config --global user.name agent && git config --global user.email agent@test.invalid'
s "$ident" >/dev/null

# --- https
out=$(s 'git clone -q https://origin.test/git/r1.git h1 && cat h1/README')
is "$out" "aisb test repo r1" "https: git clone"
out=$(s 'cd h1 && echo https-change >> README && git commit -qam "from https" &&
	git push -q origin main 2>&1 && git log -1 --format=%s')
is "$out" "from https" "https: commit and push"
is "$(hostgit log -1 --format=%s main)" "from https" "... the server has the commit"
out=$(s 'git clone -q https://origin.test/git/r1.git h2 && cd h2 &&
	echo second >> README && git commit -qam second && git push -q origin main 2>&1 &&
	cd ../h1 && git fetch -q origin && git log -1 --format=%s origin/main &&
	git pull -q --ff-only && tail -1 README')
is "$out" "second
second" "https: fetch and pull what another clone pushed"

# --- ssh to git.test:22 (allowed with its port), key from the secret
agent='eval "$(ssh-agent -s)" >/dev/null && printf "%s\n" "$GIT_SSH_KEY" | ssh-add -q - 2>/dev/null'
out=$(s "$agent && git clone -q $U@git.test:$BARE s1 && tail -1 s1/README; ssh-agent -k >/dev/null")
is "$out" "second" "ssh: git clone with the key from env.secret, known_hosts from the home"
out=$(s "$agent && cd s1 && echo ssh-change >> README && git commit -qam 'from ssh' &&
	git push -q origin main 2>&1 && git log -1 --format=%s; ssh-agent -k >/dev/null")
is "$out" "from ssh" "ssh: commit and push"
is "$(hostgit log -1 --format=%s main)" "from ssh" "... the server has the commit"
out=$(s "$agent && cd h1 && git fetch -q $U@git.test:$BARE main && git log -1 --format=%s FETCH_HEAD; ssh-agent -k >/dev/null")
is "$out" "from ssh" "ssh: fetch into the https clone"
out=$(s 'ls -a ~/.ssh; env | grep -ci "proxy.*ssh\|GIT_SSH_COMMAND" ; git config --global --list | grep -ci "proxy\|sslcainfo\|sslverify"')
is "$(echo "$out" | tr '\n' ' ')" ". .. known_hosts 0 0 " "nothing but known_hosts in ~/.ssh, no proxy or TLS settings for git"

# --- refused: a name not allowed (https), a port not allowed (ssh to
# origin.test, allowed for 80 and 443 only)
out=$(s "$(timed 'git clone -q https://other.example.test/git/r1.git d1; echo rc=$?')")
ms=$(ms_of "$out")
like "$out" "CONNECT tunnel failed, response 403" "https clone from a name not allowed: the 403 shows"
like "$out" "rc=128" "... git fails"
ok "... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
out=$(s "$agent && $(timed "git clone -q $U@origin.test:$BARE d2; echo rc=\$?")")
ms=$(ms_of "$out")
diag "ssh to a port not allowed: $(echo "$out" | head -1)"
like "$out" "Connection (refused|closed|reset)|kex_exchange_identification" "ssh clone from a port not allowed: refused"
like "$out" "rc=128" "... git fails"
ok "... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
out=$(s "$agent && $(timed "git clone -q $U@other.example.test:$BARE d3; echo rc=\$?")")
ms=$(ms_of "$out")
ok "... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
like "$out" "Could not resolve hostname other.example.test" "ssh clone from a name not allowed: it does not resolve"
done_testing
