#!/bin/bash
# tests/lib/registry.sh: the session registry for the tests that read it
# (docs/architecture.md, "The session registry").  Source after tap.sh.
#
# reg_ensure: make /var/lib/aisb/sessions (root, 1733), as the package
# does, when this host has none; what this run made goes at exit.
# reg_forget USER: USER's registry directory goes at exit (call it
# after tu_user, while the uid exists).
REG_DIR=/var/lib/aisb/sessions

reg_ensure() {
	[ -d "$REG_DIR" ] && return 0
	if [ ! -d /var/lib/aisb ]; then
		install -d -m 0755 -o root -g root /var/lib/aisb || return 1
		at_exit "rmdir /var/lib/aisb"
	fi
	install -d -m 1733 -o root -g root "$REG_DIR" || return 1
	at_exit "rmdir $REG_DIR"
}

reg_forget() {
	local uid
	uid=$(id -u "$1") || return 1
	at_exit "rm -rf '${REG_DIR:?}/$uid'"
}

# reg_json_get JSON EXPR: a value of --sessions/--egress --json output,
# EXPR a Python expression over d (the parsed document).
reg_json_get() {
	python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2" <<<"$1"
}
