#!/bin/bash
# tests/vm/96-credentials.t: tests/net/20-credentials.t in the guest.
# Credentials injected at the gate on Debian 12's kernels and its
# OpenSSL 3: the session CA in the sandbox's trust store, TLS to the test
# internet's origins verified against the guest's own trust store, the
# real value only in the gate's memory, the refusals, and curl, Node's
# fetch, Python's urllib and git over https as the clients.
#
# After the fresh-machine test (95), since that one needs a guest without
# git: git comes from the image's local repository when it is missing
# (the backports boot, where 95 does not run).  The test itself runs from
# the built tree, like the limits suite; it needs no package installed.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null; then
	at_exit vm_local_apt_off
	if ! vm_local_apt_on ||
	    ! apt-get install -y -qq --no-install-recommends git >/dev/null 2>&1; then
		fail "git from the image's local repository $VM_REPO (rebuild it: make vm-image)"
		done_testing
		exit
	fi
	vm_local_apt_off
fi
exec "$AISB_SRC/tests/net/20-credentials.t"
