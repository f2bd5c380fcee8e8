#!/bin/bash
# The test internet's services for the workload tests, from the host: git
# smart HTTP (clone over http and https, push), sshd on the service address
# (key login, git over ssh), static registry files with directory indexes.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
for c in git ssh ssh-keygen /usr/sbin/sshd curl; do
	command -v "$c" >/dev/null || skip_all "$c missing (tests/deps.sh test)"
done
N=n$$ U=tnet3x$$	# a run of its own, even beside another one
internet_up "$N" || skip_all "cannot build the test internet"
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
export HOME=$tmp GIT_CONFIG_NOSYSTEM=1
git config --global user.name tester
git config --global user.email tester@test.invalid
git config --global init.defaultBranch main

# --- git smart HTTP
ok "internet_git_repo makes a served repository" internet_git_repo "$N" demo
url=http://$INET_ADDR_ORIGIN/git/demo.git
ok "git clone over http" git clone -q "$url" "$tmp/c1"
is "$(cat "$tmp/c1/README" 2>/dev/null)" "aisb test repo demo" "the clone has the commit"
ok "git clone over https with the test CA" env GIT_SSL_CAINFO="$INET_CA" \
	git -c "http.curloptResolve=origin.test:443:$INET_ADDR_ORIGIN" \
	clone -q https://origin.test/git/demo.git "$tmp/c2"
ok "git clone over https without the CA fails" ! \
	git -c "http.curloptResolve=origin.test:443:$INET_ADDR_ORIGIN" \
	clone -q https://origin.test/git/demo.git "$tmp/c3" 2>/dev/null
echo "pushed $$" > "$tmp/c1/new"
git -C "$tmp/c1" add new && git -C "$tmp/c1" commit -q -m push
ok "git push over http" git -C "$tmp/c1" push -q origin main
ok "a fresh clone sees the push" git clone -q "$url" "$tmp/c4"
is "$(cat "$tmp/c4/new" 2>/dev/null)" "pushed $$" "with the pushed content"
is "$(curl -s -o /dev/null -w '%{http_code}' "http://$INET_ADDR_ORIGIN/git/nosuch.git/info/refs?service=git-upload-pack")" \
	"404" "an unknown repository is a 404"

# --- static registry files
mkdir -p "$INET_WWW/simple/demo"
echo '<a href="demo-1.0.tar.gz">demo-1.0.tar.gz</a>' > "$INET_WWW/simple/demo/index.html"
echo '{"name":"demo"}' > "$INET_WWW/demo.json"
like "$(curl -sS "http://$INET_ADDR_ORIGIN/static/simple/demo/")" "demo-1.0.tar.gz" \
	"a directory serves its index.html (PEP 503 style)"
like "$(curl -sS -D - -o /dev/null "http://$INET_ADDR_ORIGIN/static/demo.json")" \
	"Content-Type: application/json" "JSON files are served as JSON"

# --- sshd on the service address
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || fail "ssh-keygen"
tu_user "$U" || skip_all "cannot create $U"
usermod -p '*' "$U"	# no password, but not locked: sshd allows key login
# The repository is root's; git refuses others' repositories unless told.
printf '[safe]\n\tdirectory = *\n' > "$(getent passwd "$U" | cut -d: -f6)/.gitconfig"
ok "internet_sshd starts sshd on the service address" \
	internet_sshd "$N" "$tmp/id.pub"
sshq() {
	ssh -F /dev/null -i "$tmp/id" -o IdentitiesOnly=yes -o BatchMode=yes \
	    -o UserKnownHostsFile="$INET_SSH_KNOWN_HOSTS" -o StrictHostKeyChecking=yes \
	    -o ConnectTimeout=5 -o HostKeyAlias=git.test "$@"
}
# shellcheck disable=SC2016
is "$(sshq "$U@$INET_ADDR_SVC" 'echo hello-$USER' 2>&1)" "hello-$U" \
	"ssh with the key, host key checked"
ok "ssh with another key is refused" ! ssh -F /dev/null -o BatchMode=yes \
	-o UserKnownHostsFile="$INET_SSH_KNOWN_HOSTS" -o HostKeyAlias=git.test \
	-o IdentitiesOnly=yes -i /dev/null -o ConnectTimeout=5 \
	"$U@$INET_ADDR_SVC" true 2>/dev/null
export GIT_SSH_COMMAND="ssh -F /dev/null -i $tmp/id -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=$INET_SSH_KNOWN_HOSTS -o HostKeyAlias=git.test -o ConnectTimeout=5"
ok "git clone over ssh" git clone -q "$U@$INET_ADDR_SVC:$INET_DIR/git/demo.git" "$tmp/c5"
is "$(cat "$tmp/c5/new" 2>/dev/null)" "pushed $$" "the ssh clone is the same repository"
pid=$(cat "$INET_DIR/sshd.pid")
internet_down "$N"
ok "internet_down stops sshd" test ! -d "/proc/$pid"

done_testing
