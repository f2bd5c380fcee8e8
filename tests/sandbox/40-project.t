#!/bin/bash
# Project selection: AISB_PROJECT and the working directory pick a project
# under project.roots; a symlink or ".." that leads out is refused (78).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx4
conf=$(sess_conf project 'home { path = "tmpfs" }')
root=$SESS_TOP/tsbx4
out_dir=$SESS_TOP/outside-tsbx4
install -d -m 0755 -o tsbx4 -g tsbx4 "$root/sub" "$root/project/deep" "$out_dir"
at_exit "rm -rf '$out_dir'"
echo default > "$root/project/marker"
echo deep > "$root/project/deep/marker"
echo sub > "$root/sub/marker"
echo OUTSIDE > "$out_dir/marker"
ln -sfn "$out_dir" "$root/link"
ln -sfn sub "$root/ilink"

m() { sess_in "$@" -- -c 'cat /project/marker' 2>&1; }

# AISB_PROJECT
out=$(m / tsbx4 "$conf" AISB_PROJECT="$root/link"); rc=$?
is "$rc" 78 "AISB_PROJECT through a symlink out of the root: 78"
unlike "$out" OUTSIDE "the outside directory never became /project"
like "$out" "$root/link" "the refusal names the path"
out=$(m / tsbx4 "$conf" AISB_PROJECT="$root/sub/../../outside-tsbx4"); rc=$?
is "$rc" 78 "AISB_PROJECT with '..' out of the root: 78"
unlike "$out" OUTSIDE "and nothing of it is visible"
out=$(m / tsbx4 "$conf" AISB_PROJECT=/etc); rc=$?
is "$rc" 78 "AISB_PROJECT outside every root: 78"
is "$(m / tsbx4 "$conf" AISB_PROJECT="$root/sub")" "sub" \
    "AISB_PROJECT naming a directory under the root works"
is "$(m / tsbx4 "$conf" AISB_PROJECT="$root/ilink")" "sub" \
    "a symlink that stays inside the root is fine"
is "$(m / tsbx4 "$conf" AISB_PROJECT="$root/project/deep")" "deep" \
    "a deeper directory works"

# The working directory
out=$(m "$root/link" tsbx4 "$conf"); rc=$?
is "$rc" 78 "a cwd reached through a symlink out of the root: 78"
unlike "$out" OUTSIDE "the outside directory never became /project"
out=$(m "$out_dir" tsbx4 "$conf" PWD="$root/sub/../../outside-tsbx4"); rc=$?
is "$rc" 78 "a cwd named with '..' out of the root: 78"
unlike "$out" OUTSIDE "and nothing of it is visible"
is "$(m "$root/sub" tsbx4 "$conf")" "sub" "a cwd under the root is the project"
is "$(m / tsbx4 "$conf")" "default" "a cwd outside every root gives project.path"
is "$(m "$out_dir" tsbx4 "$conf")" "default" \
    "so does a plain cwd outside (no symlink, no '..')"

# A project path that is a symlink out of the root (project.path itself).
mv "$root/project" "$root/project.real"
ln -s "$out_dir" "$root/project"
out=$(m / tsbx4 "$conf"); rc=$?
is "$rc" 78 "project.path swapped for a symlink out of the root: 78"
unlike "$out" OUTSIDE "and nothing of it is visible"
rm "$root/project"; mv "$root/project.real" "$root/project"

done_testing
