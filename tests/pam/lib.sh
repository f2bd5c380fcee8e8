#!/bin/bash
# tests/pam/lib.sh: shared setup for the pam_aisb tests (sourced after
# tap.sh).  Everything global is named aisbt-pam-* or tpam*; everything is
# removed at exit.
PAM_SO="$BUILD/lib/security/pam_aisb.so"

# Names of this run: two runs of the suite (CI and a developer) may
# overlap on one machine, so users and groups carry the shell's pid.
R=$(( $$ % 100000 ))
U1=tpam${R}a U2=tpam${R}b U3=tpam${R}c U4=tpam${R}d
UG=tpam${R}g		# a group of agents
AG=tpam${R}s		# stands for ai-agents (the drop-in's Match Group)
SP=aisbt-pam-${R}	# PAM service names: /etc/pam.d/$SP-*
export U1 U2 U3 U4 UG AG SP

pam_require() {
	require_root
	command -v pamtester >/dev/null || skip_all "pamtester not installed"
	[ -f "$PAM_SO" ] || skip_all "pam_aisb.so not built"
	# The account check wants a root-owned aisb-shell in root-owned
	# directories (pam_aisb(8)); a build tree elsewhere cannot pass.
	local d=$AISB_SHELL
	while [ "$d" != / ]; do
		[ "$(stat -c %u "$d")" = 0 ] ||
			skip_all "$d is not root-owned: build as root to test pam_aisb"
		d=$(dirname "$d")
	done
}

# pam_service NAME LINES...: /etc/pam.d/NAME with these lines, removed at exit.
pam_service() {
	local name=$1; shift
	printf '%s\n' "$@" > "/etc/pam.d/$name"
	at_exit "rm -f /etc/pam.d/$name"
}

# pam_group NAME: create group NAME unless it exists (then removed at exit).
pam_group() {
	getent group "$1" >/dev/null && return 0
	groupadd "$1" && at_exit "groupdel $1"
}

# pam_tmpdir: a root-owned 0755 scratch directory (tap_scratch: not /tmp,
# whose world-writable parent the policy loader refuses, nor /run, noexec
# on systemd hosts, where the tests' copies of aisb-shell must run).
tap_need_exec "$TAP_SCRATCH"
pam_tmpdir() { tap_scratch pam; }
