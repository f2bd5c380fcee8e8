#!/bin/bash
# `make demo`'s session part (tests/demo.sh) on this host: it runs to its
# end, every step it shows works, and none of its "DEMO FAILED" checks
# fires.  (The whole `make demo` from a fresh machine, packages and all,
# is tests/vm/95-fresh-demo.t in the VM lane.)  The user and the tree it
# makes are removed afterwards unless they were there before.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
require_root
have_userns || skip_all "no unprivileged user namespaces"
[ -x "$AISB_SHELL" ] || skip_all "$AISB_SHELL is not built"
had_user=false
id aisbdemo >/dev/null 2>&1 && had_user=true
had_top=false
[ -e /srv/aisb-demo ] && had_top=true
cleanup() {
	$had_user || userdel -r aisbdemo >/dev/null 2>&1
	$had_top || rm -rf /srv/aisb-demo
}
at_exit cleanup
out=$(cd / && BUILD=$BUILD TERM=dumb "$AISB_SRC/tests/demo.sh" 2>&1)
rc=$?
is "$rc" 0 "tests/demo.sh runs to its end"
[ "$rc" = 0 ] || tail -n 20 <<<"$out" | sed 's/^/# /'
unlike "$out" "DEMO FAILED" "none of its checks fails"
like "$out" "uid=[0-9]+\(aisbdemo\)" "id inside names the demo user"
like "$out" "cat: /etc/shadow: Permission denied" "/etc/shadow is denied"
like "$out" "hello from the sandbox" "the project write shows on the host"
like "$out" "touch: cannot touch '/usr/evil'" "/usr is read-only"
like "$out" "ls: cannot access '/root'" "/root is not in the view"
like "$(tail -n 1 <<<"$out")" "^status: 42$" "the exit status comes back"
done_testing
