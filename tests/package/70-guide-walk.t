#!/bin/bash
# docs/admin-guide.md, walked on this host from `apt install` to a
# doctor-clean agent and back to `apt purge`: the commands are the
# guide's own, read out of its code blocks, so a changed guide changes
# what runs.  Steps 1 to 10 and "Removing aisb" are walked in order.
# Every paragraph of a code block there is run, line by line, as root
# (a `$ ` line from the client side), except what the table in walk()
# names with its reason (a placeholder, another machine, an optional
# way); a `# /etc/...` paragraph is the text of that file and is
# appended to it.  Whatever the table does not know is run, and a
# command that fails fails the test, so a new step the test cannot run
# fails until this file learns it.  Two substitutions: the agent is
# called $A here, not `agent`, and the host `buildhost` is a real sshd
# on a loopback port that reads the host's own /etc/ssh/sshd_config
# (with the guide's drop-in) and /etc/pam.d/sshd.
#
# This host has no syslog receiver, and the doctor fails its `syslog`
# line there by design.  The whole walk runs in a private mount
# namespace whose /dev/log is a test receiver (tests/lib/syslog.sh), as
# on a host with journald or rsyslog, so the doctor must be clean with
# no fail line allowed, and the sessions' records must reach it.
#
# Everything the walk changes is undone at exit: the package purged, the
# account, the group, /srv/agents, /etc/ssh/sshd_config.d/aisb.conf,
# the key, the host's /etc/pam.d/sshd, cron.deny and at.deny.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"

require_root
skip_in_san
guide=$AISB_SRC/docs/admin-guide.md
[ -f "$guide" ] || skip_all "no docs/admin-guide.md"

# Into a private mount namespace first (/dev/log is ours only there).
if [ -z "${AISBT_GUIDE_NS:-}" ]; then
	exec unshare -m --propagation private env AISBT_GUIDE_NS=1 "$0" "$@"
fi

# One at a time machine-wide, with tests/package/40-deb.t: the package,
# the PAM stacks and /etc/ssh are the host's.
exec {pkg_lock}>/run/aisb-tdoc-package.lock
flock -w 600 "$pkg_lock" || skip_all "another run holds /run/aisb-tdoc-package.lock"
for c in dpkg-buildpackage dh apt-get git python3 sshd ssh su pamtester pam-auth-update; do
	command -v "$c" >/dev/null || skip_all "$c is missing"
done
git -C "$AISB_SRC" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	skip_all "not a git checkout: make dist needs one"
if dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -q 'ok installed'; then
	skip_all "the aisb package is already installed on this host"
fi
for f in /usr/bin/aisb-shell /etc/aisb /usr/libexec/aisb /etc/ssh/sshd_config.d/aisb.conf; do
	[ -e "$f" ] && skip_all "$f exists and is not this test's: refusing to touch it"
done
A=tguide1
getent passwd "$A" >/dev/null && skip_all "user $A exists (a crashed run?)"
# The guide's group, as it names it: the shipped policy's agents.
getent group ai-agents >/dev/null && skip_all "group ai-agents exists on this host"
[ -e "/srv/agents/$A" ] && skip_all "/srv/agents/$A exists"
have_userns nobody || skip_all "no unprivileged user namespaces"

tmp=$(mktemp -d)
chmod 0755 "$tmp"
at_exit "rm -rf '$tmp'"
syslog_dev "$tmp/syslog" || skip_all "no test receiver on /dev/log"
at_exit "kill $SYSLOG_PID"
# The fresh /dev lacks what bash's <(...) and the guide's commands may use.
ln -s /proc/self/fd /dev/fd
for n in stdin:0 stdout:1 stderr:2; do ln -s "/proc/self/fd/${n#*:}" "/dev/${n%%:*}"; done

# --- what the host had, to put back ----------------------------------------
save=$tmp/save
mkdir -p "$save/pam.d" "$save/lib"
cp -a /etc/pam.d/. "$save/pam.d/"
cp -a /var/lib/pam/. "$save/lib/" 2>/dev/null
sum_pam() { (cd /etc/pam.d && sha256sum common-* sshd su 2>/dev/null); }
sum_pam > "$tmp/pam-before"
for f in /etc/cron.deny /etc/at.deny; do
	if [ -e "$f" ]; then cp -a "$f" "$save/${f##*/}"; else : > "$save/${f##*/}.absent"; fi
done
had_keys=; [ -d /etc/ssh/authorized_keys ] && had_keys=yes
had_srv=; [ -d /srv/agents ] && had_srv=yes
restore() {
	[ -n "$(cat "$tmp/sshd.pid" 2>/dev/null)" ] && kill "$(cat "$tmp/sshd.pid")"
	if dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -q 'ok installed\|config-files'; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 purge -y -qq aisb
	fi
	cp -a "$save/pam.d/." /etc/pam.d/
	cp -a "$save/lib/." /var/lib/pam/
	for f in /etc/cron.deny /etc/at.deny; do
		if [ -e "$save/${f##*/}.absent" ]; then rm -f "$f"; else cp -a "$save/${f##*/}" "$f"; fi
	done
	rm -f /etc/ssh/sshd_config.d/aisb.conf "/etc/ssh/authorized_keys/$A"
	[ -n "$had_keys" ] || rmdir /etc/ssh/authorized_keys
	pkill -KILL -u "$A"
	userdel -r "$A"
	groupdel ai-agents
	rm -rf "/srv/agents/$A" "/var/lib/aisb/home/$A" /etc/aisb
	[ -n "$had_srv" ] || rmdir /srv/agents
	rmdir /var/lib/aisb/home /var/lib/aisb
	true
}
at_exit restore

# --- stand-ins the guide leaves to the reader -------------------------------
# The repository step 3 clones (https://example.org/repo.git): a local one,
# with the `make test` that step 10 runs over ssh.
git init -q -b main "$tmp/src"
printf 'test:\n\t@echo "make test: ran in $$(pwd)"\n' > "$tmp/src/Makefile"
git -C "$tmp/src" add Makefile
git -C "$tmp/src" -c user.name=t -c user.email=t@t commit -q -m init
git clone -q --bare "$tmp/src" "$tmp/repo.git"
# The agent's key (step 6: `cat agent_key.pub`), in the walk's directory.
ssh-keygen -q -t ed25519 -N '' -C guide-walk -f "$tmp/agent_key"
# git's --global (step 3) and apt's answers go to this run's files.
export GIT_CONFIG_GLOBAL=$tmp/gitconfig DEBIAN_FRONTEND=noninteractive
printf 'APT::Get::Assume-Yes "true";\nDPkg::Lock::Timeout "300";\n' > "$tmp/apt.conf"
export APT_CONFIG=$tmp/apt.conf

free_port() {
	local p
	for p in $(shuf -i 27000-27999 -n 100); do
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}
# `systemctl reload ssh` (no systemd here): (re)start a real sshd with the
# host's configuration on a loopback port (run in a subshell: the port
# goes to a file).
sshd_reload() {
	local _ port
	[ -n "$(cat "$tmp/sshd.pid" 2>/dev/null)" ] && kill "$(cat "$tmp/sshd.pid")"
	: > "$tmp/sshd.pid"
	port=$(free_port) || return 1
	echo "$port" > "$tmp/sshd.port"
	mkdir -p /run/sshd
	/usr/sbin/sshd -f /etc/ssh/sshd_config -o "Port=$port" -o ListenAddress=127.0.0.1 \
	    -o "PidFile=$tmp/sshd.pid" -E "$tmp/sshd.log" || return 1
	for _ in $(seq 100); do
		ss -Htln "sport = :$port" | grep -q . && return 0
		sleep 0.05
	done
	return 1
}
# The client side (`$ ssh agent@buildhost ...`), key only, no host key
# bookkeeping, to the sshd above.
ssh_guide() {
	timeout 60 ssh -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o BatchMode=yes -o LogLevel=ERROR -i "$tmp/agent_key" -p "$(cat "$tmp/sshd.port")" "$@"
}

# --- the guide's code blocks -------------------------------------------------
# One record per paragraph of a code block: section, subsection, line,
# text (its indentation removed), NUL-terminated.
units() {
	python3 - "$guide" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n") + [""]
sec = sub = ""
i = 0
prev_blank = True
while i < len(lines):
    l = lines[i]
    m = re.match(r"^(#{2,3}) (.*)", l)
    if m:
        if m.group(1) == "##":
            sec, sub = m.group(2), ""
        else:
            sub = m.group(2)
    ind = len(l) - len(l.lstrip(" "))
    if prev_blank and l.strip() and ind >= 4 and not l.lstrip().startswith(("-", "*", "|")):
        # A code block: this indentation or more, blank lines inside.
        block, start = [], i + 1
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip(" ")) >= ind):
            block.append(lines[i][ind:])
            i += 1
        para, pstart = [], start
        for k, b in enumerate(block + [""]):
            if b.strip():
                if not para:
                    pstart = start + k
                para.append(b)
            elif para:
                sys.stdout.write("%s\x1f%s\x1f%d\x1f%s\x00" % (sec, sub, pstart, "\n".join(para)))
                para = []
        prev_blank = True
        continue
    prev_blank = not l.strip()
    i += 1
PY
}

# sub_agent TEXT: the guide's agent `agent` is $A here (a whole word:
# ai-agents, /srv/agents and agent_key stay).
sub_agent() { sed -E "s/(^|[^[:alnum:]_-])agent([^[:alnum:]_-]|\$)/\\1$A\\2/g; s/(^|[^[:alnum:]_-])agent([^[:alnum:]_-]|\$)/\\1$A\\2/g" <<<"$1"; }

# run_line WHERE CMD: one command of the guide as root, in the walk's
# directory; a `# fails` comment means it must fail.
run_line() {
	local where=$1 cmd=$2 out rc want=0
	case "$cmd" in *'# fails'*) want=1 ;; esac
	out=$(cd "$tmp" && eval "$cmd" 2>&1 </dev/null)
	rc=$?
	if { [ $want = 0 ] && [ $rc = 0 ]; } || { [ $want = 1 ] && [ $rc != 0 ]; }; then
		pass "$where: $cmd"
	else
		fail "$where: $cmd (exit $rc)" "$(tail -n 15 <<<"$out")"
	fi
	printf '%s\n' "$out" > "$tmp/last.out"
}

# What the walk checks beyond each command's status, keyed by command.
after_line() {
	local where=$1 cmd=$2 out
	case "$cmd" in
	'aisb-shell --version')
		like "$(cat "$tmp/last.out")" '^aisb-shell [0-9]' "$where: it prints the version" ;;
	'aisb-shell --doctor')
		out=$(cat "$tmp/last.out")
		unlike "$out" '^fail: ' "$where: no check fails on the guide's layout"
		like "$out" '^ok: syslog: ' "$where: ... the syslog line too (the test receiver listens)"
		like "$out" "^ok: project\\[$A\\]: /srv/agents/$A/project \\(uid $(id -u "$A" 2>/dev/null)" \
		    "$where: ... the project of step 3 is ok"
		grep '^\(warn\|fail\): ' <<<"$out" | sed 's/^/# /'
		out=$(aisb-shell --doctor --user "$A" 2>&1)
		is "$?" 0 "$where: aisb-shell --doctor --user $A exits 0"
		unlike "$out" '^fail: ' "$where: ... no check fails"
		grep '^fail: ' <<<"$out" | sed 's/^/# /'
		;;
	"su - $A -c "*)
		out=$(cat "$tmp/last.out")
		like "$out" "uid=$(id -u "$A" 2>/dev/null)\\($A\\)" "$where: the command ran as $A"
		is "$(grep -A1 -x "uid=.*" <<<"$out" | sed -n 2p)" "$A" "$where: /home holds the agent's home alone"
		unlike "$out" '^root:' "$where: /etc/shadow is not read"
		ok "$where: /usr stayed read-only" test ! -e /usr/x
		is "$(cat "/srv/agents/$A/project/x" 2>&1)" ok "$where: /project/x shows on the host"
		# Step 4's in-session audit, once the first login has made
		# the sandbox home (as step 4 says).
		out=$(aisb-shell --doctor --jailcheck 2>&1)
		is "$?" 0 "$where: then aisb-shell --doctor --jailcheck (step 4) exits 0"
		unlike "$out" '^fail: ' "$where: ... no check fails (the strict limits included)"
		grep '^fail: ' <<<"$out" | sed 's/^/# /'
		;;
	esac
}

# Before the purge: the sessions' records reached the receiver.
before_purge() {
	like "$(cat "$tmp/syslog")" "aisb-shell\\[[0-9]+\\]: " "the sessions' records reached the test receiver on /dev/log"
	unlike "$(cat "$tmp/syslog")" 'nothing listens on /dev/log' "... and nothing said it was missing"
}

# The lines the walk does not run as written, with the reason; every
# other line of steps 1-10 and "Removing aisb" runs.
walk() {
	local sec sub line text where first l n
	while IFS=$'\x1f' read -r -d '' sec sub line text; do
		case "$sec" in
		[0-9]*.\ *|'Removing aisb') ;;
		*) continue ;;
		esac
		where="guide:$line (${sec%%.*}${sub:+, $sub})"
		[ "$sec" = 'Removing aisb' ] && before_purge
		text=$(sub_agent "$text")
		first=${text%%$'\n'*}
		case "$sub" in
		'Bound the disk')
			skip "$where: $first" "optional, and it changes the host's /etc/fstab or quotas"
			continue ;;
		'When a login is refused')
			skip "$where: $first" "reads journald or auth.log; the records reach the test receiver (below)"
			continue ;;
		'') ;;
		*)
			fail "$where: a subsection the walk does not know" "$first"
			continue ;;
		esac
		case "$first" in
		'# /etc/'*)
			if grep -q '^credential ' <<<"$text"; then
				skip "$where: ${text//$'\n'/ }" "the credential, the other way to the secret above (tests/net/20-credentials.t)"
				continue
			fi
			ok "$where: ${first#\# } gets the paragraph" \
			    sh -c 'printf "%s\n" "$2" >> "$1" && chmod 0644 "$1"' - "${first#\# }" "$text"
			continue ;;
		'agents = {"@ai-agents"}')
			skip "$where: the policy edit" "the shipped /etc/aisb/aisb.conf already says agents = {\"@ai-agents\"}; its allow list is the admin's"
			continue ;;
		'filesystem {')
			skip "$where: filesystem.readonly/readwrite" "an example of site paths (/opt/toolchains) this host lacks"
			continue ;;
		'session    required     pam_env.so '*)
			skip "$where: $first" "Debian's line, quoted (the sed below takes its user_readenv=1 off)"
			continue ;;
		'fail: '*)
			skip "$where: $first" "the doctor's output, quoted"
			continue ;;
		esac
		while IFS= read -r l; do
			# A client line's comment says what it shows.
			case "$l" in '$ '*) l=${l%%  *#*}; l=${l%"${l##*[! ]}"} ;; esac
			case "$l" in
			'make deb'*)
				run_line "$where" "make -s -C '$AISB_SRC' BUILD='$tmp/build' deb >'$tmp/make-deb.log' 2>&1"
				;;
			'apt-get install --no-install-recommends debhelper '*)
				skip "$where: the build dependencies" "needs a mirror; tests/package/62-guide-pkg.t checks the line, this host has them" ;;
			'apparmor_parser -r '*)
				skip "$where: $l" "no AppArmor here (the VM lane loads the profile)" ;;
			'usermod --append '*)
				skip "$where: $l" "the way for an existing account; step 2's useradd made this one" ;;
			"install -d -m 0700 -o $A -g $A /var/lib/aisb/home/$A")
				skip "$where: $l" "only without pam_aisb, which step 7 enables (its session makes the home)" ;;
			'git clone https://example.org/repo.git '*)
				run_line "$where" "${l/https:\/\/example.org\/repo.git/file://$tmp/repo.git}" ;;
			*'systemctl reload ssh'*)
				run_line "$where" "${l/systemctl reload ssh/sshd_reload}" ;;
			"\$ ssh -N -L "*)
				skip "$where: $l" "tests/pam/50-sshd-forward.t: ssh -L refused through the drop-in" ;;
			"\$ ssh $A@buildhost")
				# An interactive login: its shell reads stdin.
				# shellcheck disable=SC2016 # expanded inside
				n=$(printf '%s\n' 'echo "in=$AISB_SESSION $(pwd)"' exit | ssh_guide "$A@127.0.0.1" 2>&1)
				like "$n" '^in=[0-9a-f]{32} ' "$where: $l: a sandboxed login shell (AISB_SESSION set)" ;;
			"\$ ssh $A@buildhost "*)
				l=${l#\$ ssh "$A"@buildhost }
				n=$(eval "ssh_guide '$A@127.0.0.1' $l" 2>&1 </dev/null)
				is "$?" 0 "$where: ssh $A@buildhost $l"
				like "$n" 'make test: ran in /project' "$where: ... the project's make test ran inside, in /project" ;;
			'$ '*)
				fail "$where: a client command the walk does not know" "$l" ;;
			*)
				run_line "$where" "$l"
				after_line "$where" "$l" ;;
			esac
		done <<<"$text"
	done < <(units)
}

walk
# After `apt purge aisb`: the stacks as before (sshd's keeps the sed of
# step 6, the admin's own edit), and what the guide says stays, stays.
sum_pam | grep -v ' sshd$' > "$tmp/pam-after"
is "$(grep -v ' sshd$' "$tmp/pam-before" | diff - "$tmp/pam-after")" "" \
    "after the purge the PAM stacks (common-*, su) are as before the walk"
ok "after the purge /usr/bin/aisb-shell is gone" test ! -e /usr/bin/aisb-shell
for f in "/var/lib/aisb/home/$A" "/etc/aisb/users.d/$A.conf" "/etc/aisb/secrets/$A/anthropic" \
    /etc/ssh/sshd_config.d/aisb.conf "/etc/ssh/authorized_keys/$A"; do
	ok "after the purge $f stays (\"Removing aisb\": yours)" test -e "$f"
done
done_testing
