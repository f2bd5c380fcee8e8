#!/bin/bash
# tests/vm/lib.sh: shared setup of the guest tests (sourced after tap.sh).
#
# These tests run inside the lane's Debian 12 guest (tests/vm/check boots
# it), as root, one boot per kernel, in file order: 10-deb.t installs the
# package and sets the host up as docs/admin-guide.md says, the tests
# after it use that host, 90-purge.t takes it all away again.  What one
# test hands to the next lives in $VM_STATE.  On any other machine they
# skip: they change the host's PAM stacks, sshd and AppArmor for real.

[ -f /etc/aisb-vm-guest ] || skip_all "not the aisb test guest (tests/vm/check boots it: make vm-check)"
require_root

# shellcheck disable=SC2034  # VM_DEB, PROJECT are read by the test scripts
VM_DEB=$AISB_SRC/aisb.deb
VM_STATE=/var/lib/aisb-vm
AGENT=agent
AGENT_KEY=$VM_STATE/agent_key
# shellcheck disable=SC2034
PROJECT=/srv/agents/$AGENT/project
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$VM_STATE"

vm_installed() {
	dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -q 'ok installed'
}

vm_need_setup() {
	if ! vm_installed || [ ! -f "$VM_STATE/setup-done" ]; then
		skip_all "the package is not installed and set up (tests/vm/10-deb.t does it)"
	fi
}

# agent_ssh CMD: `ssh agent@localhost CMD` through the guest's own sshd
# (Debian's sshd_config, UsePAM, pam_systemd, the guide's drop-in),
# ended after VM_SSH_TIMEOUT (120) seconds.
agent_ssh() {
	timeout "${VM_SSH_TIMEOUT:-120}" ssh -i "$AGENT_KEY" -o BatchMode=yes \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o LogLevel=ERROR "$AGENT@localhost" "$@"
}

# agent_ssh_bg CMD: the same in the background; BG is the pid of the
# client's timeout(1), whose SIGTERM ends the client and so the login.
agent_ssh_bg() {
	timeout "${VM_SSH_TIMEOUT:-120}" ssh -i "$AGENT_KEY" -o BatchMode=yes \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o LogLevel=ERROR "$AGENT@localhost" "$@" >/dev/null 2>&1 </dev/null &
	# shellcheck disable=SC2034  # read by the test scripts
	BG=$!
}

# users_d LINES...: /etc/aisb/users.d/agent.conf as the guide writes it
# (step 5: the agent's secret) plus these lines, root's, 0644;
# users_d_clear: the guide's file alone again.
# shellcheck disable=SC2120  # users_d_clear calls it without lines
users_d() {
	{
		echo 'env {'
		echo '	secret ANTHROPIC_API_KEY { file = "/etc/aisb/secrets/%u/anthropic" }'
		echo '}'
		printf '%s\n' "$@"
	} >"/etc/aisb/users.d/$AGENT.conf"
	chmod 0644 "/etc/aisb/users.d/$AGENT.conf"
}
users_d_clear() { users_d; }

# agent_pids: every process of the agent, one pid a line.
agent_pids() { pgrep -u "$AGENT" || true; }

# wait_gone SECS: until the agent has no process left; 0 if so.
wait_gone() {
	local end
	end=$(($(date +%s%N) + $1 * 1000000000))
	while [ -n "$(agent_pids)" ]; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# agent_cgroups: cgroup directories of the agent's delegations or sessions
# still present anywhere in the v2 tree.
agent_cgroups() {
	find /sys/fs/cgroup -type d -regextype posix-extended \
	    -regex ".*/($AGENT-[0-9]+-[0-9a-f]+|session-[0-9a-f]{16,})" 2>/dev/null
}

# session_cgroup: the newest aisb session cgroup (session-ID) of the
# agent, as a path under /sys/fs/cgroup; empty when there is none.
session_cgroup() {
	local d
	d=$(find /sys/fs/cgroup -mindepth 2 -type d -regextype posix-extended \
	    -regex '.*/session-[0-9a-f]{16,}' -printf '%T@ %p\n' 2>/dev/null |
	    sort -n | tail -n 1)
	echo "${d#* }"
}

# has_session_cgroup, no_agent_cgroups: conditions for wait_for.
has_session_cgroup() { [ -n "$(session_cgroup)" ]; }
no_agent_cgroups() { [ -z "$(agent_cgroups)" ]; }

# wait_for CMD...: poll CMD (run anew each time) for up to 30 s.
wait_for() {
	local i
	for ((i = 0; i < 300; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# The image's local repository: git, make and the build's packages,
# downloaded (not installed) when the image was built, with what they
# pull in (tests/vm/image.sh).  The guest has no network to fetch them.
VM_REPO=/opt/aisb-vm-repo
_vm_apt_off=$VM_STATE/apt-off

# vm_local_apt_on: apt sees only VM_REPO (the guest's own sources are
# moved aside); vm_local_apt_off puts them back.  The caller registers
# vm_local_apt_off with at_exit first.
vm_local_apt_on() {
	local f
	[ -s "$VM_REPO/Packages" ] || return 1
	mkdir -p "$_vm_apt_off" || return 1
	[ -e /etc/apt/sources.list ] && mv /etc/apt/sources.list "$_vm_apt_off/.sources.list"
	for f in /etc/apt/sources.list.d/*; do
		[ -e "$f" ] && mv "$f" "$_vm_apt_off/"
	done
	echo "deb [trusted=yes] file:$VM_REPO ./" >/etc/apt/sources.list.d/aisb-vm-repo.list
	apt-get -o Acquire::Retries=3 update -qq >/dev/null 2>&1
}
vm_local_apt_off() {
	local f
	rm -f /etc/apt/sources.list.d/aisb-vm-repo.list
	[ -d "$_vm_apt_off" ] || return 0
	for f in "$_vm_apt_off"/*; do
		[ -e "$f" ] && mv "$f" /etc/apt/sources.list.d/
	done
	[ -e "$_vm_apt_off/.sources.list" ] && mv "$_vm_apt_off/.sources.list" /etc/apt/sources.list
	rmdir "$_vm_apt_off" 2>/dev/null
	return 0
}
