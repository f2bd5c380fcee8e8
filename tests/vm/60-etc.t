#!/bin/bash
# /etc in the sandbox on this guest's kernel (Debian's own 6.1, whose
# tmpfs takes no user xattrs, and the backports one): the overlay mounts,
# a hidden directory shows empty, a hidden file is unreadable, a hidden
# name that does not exist stays missing, and none of them comes back
# when the host replaces it by rename during the session, while a file
# the host adds under another name meanwhile does show (the witness that
# the session looked again after the host's changes).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_setup
diag "kernel $(uname -r)"
E=/etc/aisb-vm
cleanup() {
	users_d_clear
	rm -rf "$E-dir" "$E-dir.old" "$E-dir.new" "$E-file" "$E-file.new" \
	    "$E-missing" "$E-seen" "$PROJECT/ready" "$PROJECT/go"
}
at_exit cleanup
cleanup
mkdir "$E-dir"
echo dir-secret >"$E-dir/key"
echo file-secret >"$E-file"
chmod -R a+rX "$E-dir" "$E-file"
users_d 'filesystem {' "	hide += {\"$E-dir\", \"$E-file\", \"$E-missing\"}" '}'

# The session reports once before and once after the host's renames.
# The witness, a name the host adds meanwhile, is looked up only after:
# a lookup before would leave the overlay a negative dentry to keep.
# shellcheck disable=SC2016 # expanded inside the sandbox
look='echo "dir=[$(ls -A '"$E"'-dir | tr "\n" " ")]"; cat '"$E"'-file 2>&1 | sed "s/^/file=/";
	ls '"$E"'-missing >/dev/null 2>&1 && echo missing=shows'
VM_SSH_TIMEOUT=120 agent_ssh "echo start; $look; touch /project/ready;
	while [ ! -e /project/go ]; do sleep 0.1; done; echo after; $look;
	cat $E-seen 2>&1 | sed 's/^/seen=/'; cat /etc/hostname" \
    >"$VM_STATE/etc.out" 2>&1 &
bg=$!
wait_for test -e "$PROJECT/ready"
ok "the session started (the /etc overlay mounted on $(uname -r))" test -e "$PROJECT/ready"
# The host replaces each by rename, as useradd and passwd(1) do.
mkdir "$E-dir.new" && echo dir-new >"$E-dir.new/key" && chmod -R a+rX "$E-dir.new"
mv "$E-dir" "$E-dir.old" && mv "$E-dir.new" "$E-dir"
echo file-new >"$E-file.new" && chmod a+r "$E-file.new" && mv "$E-file.new" "$E-file"
echo missing-new >"$E-missing" && chmod a+r "$E-missing"
echo seen-after >"$E-seen" && chmod a+r "$E-seen"
touch "$PROJECT/go"
wait "$bg"
out=$(cat "$VM_STATE/etc.out")
before=$(sed -n '/^start$/,/^after$/p' <<<"$out")
after=$(sed -n '/^after$/,$p' <<<"$out")
like "$before" 'dir=\[\]' "a hidden directory under /etc shows empty"
like "$before" 'file=.*Permission denied' "a hidden file under /etc cannot be read"
unlike "$before" 'missing=shows' "a hidden name that does not exist is missing"
like "$after" 'dir=\[\]' "after the host renamed a new directory in: still empty"
like "$after" 'file=.*Permission denied' "after the host renamed a new file in: still unreadable"
unlike "$after" 'missing=shows' "after the host created the missing name: still missing"
unlike "$out" 'secret|dir-new|file-new|missing-new' "no hidden content ever shows"
like "$after" 'seen=seen-after' "the witness: a file the host added meanwhile shows"
like "$after" '^aisb$' "/etc/hostname is the generated one"

done_testing
