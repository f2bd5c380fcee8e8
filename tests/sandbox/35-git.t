#!/bin/bash
# The project's git metadata cannot be turned against the human: after a
# session, a human who runs git in the project on the host (status, log,
# diff, commit, checkout, fetch, pull) runs nothing the agent wrote.
# Each attack plants a canary command where the human's git would run
# it; it runs on a copy of the project attacked outside any session
# (so the attack is real and this test can fail), and not after the
# same attack inside a session.  Twin: the agent's own git workflow
# (commit, branch, fetch from a local remote, rebase, merge, worktree)
# works inside and shows on the host.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
command -v git >/dev/null || skip_all "no git"
U=tsbx9
sess_user "$U"
top=$SESS_TOP/$U
proj=$top/project
remote=$top/remote.git
subremote=$top/sub.git
conf=$(sess_conf git "filesystem { readonly = {\"$remote\", \"$subremote\"} }")
# Canaries: the human (root) writes them; the agent never sees this
# directory, it only names it in what it plants.
C=$SESS_TOP/canary-$$
install -d -m 0755 "$C"
at_exit "rm -rf '$C'"
hhome=$(mktemp -d)
at_exit "rm -rf '$hhome'"

ag() { as "$U" git -c user.name=agent -c user.email=agent@test.invalid \
	-c protocol.file.allow=always "$@"; }
r() { sess "$U" "$conf" -c "cd /project && $1" 2>&1; }

# The remotes: a main repository and one used as a submodule.
rm -rf "$remote" "$subremote" "$top/seed"
ag init -q --bare -b main "$remote"
ag init -q --bare -b main "$subremote"
as "$U" install -d "$top/seed"
ag -C "$top/seed" init -q -b main
as "$U" sh -c "echo sub > '$top/seed/s.txt'"
ag -C "$top/seed" add s.txt
ag -C "$top/seed" commit -qm sub
as "$U" sh -c "echo sub2 > '$top/seed/s.txt'"
ag -C "$top/seed" commit -qam sub2
ag -C "$top/seed" push -q "$subremote" main
rm -rf "$top/seed"
as "$U" install -d "$top/seed"
ag -C "$top/seed" init -q -b main
as "$U" sh -c "echo one > '$top/seed/a.txt'"
ag -C "$top/seed" add a.txt
ag -C "$top/seed" commit -qm one
ag -C "$top/seed" push -q "$remote" main
rm -rf "$top/seed"

# fresh [KIND]: a new clone of the remote as the project, owned by the
# agent.  KIND adds a linked worktree "wt" (worktree), a submodule
# "sub" with a branch "old" where it is one commit behind (submodule),
# or makes .git a gitfile naming .bare inside the project (gitfile).
fresh() {
	rm -rf "$proj"
	case ${1-} in
	gitfile)
		as "$U" install -d "$proj"
		ag clone -q --bare "$remote" "$proj/.bare"
		as "$U" sh -c "printf 'gitdir: ./.bare\n' > '$proj/.git'"
		ag -C "$proj" config core.bare false
		ag -C "$proj" config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'
		ag -C "$proj" reset -q --hard main
		;;
	*)
		ag clone -q "$remote" "$proj"
		;;
	esac
	case ${1-} in
	worktree) ag -C "$proj" worktree add -q wt -b wtb ;;
	submodule)
		ag -C "$proj" submodule add -q "$subremote" sub
		ag -C "$proj" commit -qm "add sub"
		ag -C "$proj/sub" checkout -q HEAD~1
		ag -C "$proj" commit -qam "old sub"
		ag -C "$proj" branch old
		ag -C "$proj" reset -q --hard HEAD~1
		ag -C "$proj" submodule update -q
		;;
	esac
}

# human DIR [SAFE...]: the human's git in DIR on the host, as root, with
# no configuration of its own but trust in DIR (and SAFE...) by exact
# path: status, log, diff, commit, checkout, fetch, pull.
human() {
	local d=$1 x
	local -a sd=(-c "safe.directory=$d")
	shift
	for x in "$@"; do sd+=(-c "safe.directory=$x"); done
	hg() {
		env -i PATH=/usr/bin:/bin HOME="$hhome" GIT_CONFIG_NOSYSTEM=1 \
		    GIT_TERMINAL_PROMPT=0 timeout 30 git "${sd[@]}" \
		    -c user.name=human -c user.email=human@test.invalid \
		    -c protocol.file.allow=always -c submodule.recurse=true \
		    -C "$d" "$@" </dev/null >/dev/null 2>&1
	}
	hg status
	hg log -1
	hg diff
	hg commit -q --allow-empty -m human
	hg checkout -q -b "human-$RANDOM"
	hg checkout -q -
	hg checkout -q old && hg checkout -q -
	hg fetch -q origin
	hg pull -q --no-rebase --no-edit origin main
	hg status
}

# attack NAME SETUP DIR SCRIPT SAFE...: SETUP (a function) makes the
# project; SCRIPT (text, where @C@ stands for the canary command) runs
# on a copy of it on the host, as the agent, outside any session, then
# the human's git runs on that copy (in DIR, relative to the project;
# SAFE are more paths below it to trust): the canary must run.  Then
# SETUP again, the same SCRIPT inside a session, and the human's git in
# the project: it must not.
attack() {
	local name=$1 setup=$2 dir=$3 script=$4 copy=$top/copy x
	shift 4
	local -a safe_copy=() safe_proj=()
	for x in "$@"; do
		safe_copy+=("$copy/$x")
		safe_proj+=("$proj/$x")
	done
	rm -rf "$copy" "${C:?}/$name" "$C/$name.copy"
	"$setup"
	cp -a "$proj" "$copy"
	# A linked worktree's links are absolute: make the copy's its own.
	if [ -d "$copy/wt" ]; then
		as "$U" sed -i "s|$proj/|$copy/|" "$copy/wt/.git" \
		    "$copy/.git/worktrees/wt/gitdir"
	fi
	as "$U" bash -c "cd '$copy' && ${script//@C@/touch $C/$name.copy}" \
	    >/dev/null 2>&1
	human "$copy${dir:+/$dir}" "${safe_copy[@]}"
	ok "$name: unprotected (a copy outside any session), the human's git runs the agent's canary" \
	    [ -e "$C/$name.copy" ]
	"$setup"
	r "${script//@C@/touch $C/$name}" >/dev/null
	human "$proj${dir:+/$dir}" "${safe_proj[@]}"
	ok "$name: after the same attack inside a session, the human's git runs nothing" \
	    [ ! -e "$C/$name" ]
	rm -rf "$copy"
}

# The payload most attacks write into a configuration git reads: a
# filesystem monitor (status, diff, commit), an upload-pack for the
# origin (fetch, pull), a pager (log on a terminal).
evil='[core]\n\tfsmonitor = \"@C@; false\"\n\tpager = \"@C@; cat\"\n[remote \"origin\"]\n\tuploadpack = \"@C@; false\"\n'
hook='#!/bin/sh\n@C@\n'

# The projects the attacks start from.
s_plain() { fresh; }
s_gitfile() { fresh gitfile; }
s_hooksdir() {
	fresh
	ag -C "$proj" config core.hooksPath .githooks
	as "$U" install -d "$proj/.githooks"
}
s_hooksmissing() { fresh; ag -C "$proj" config core.hooksPath tools/hooks; }
s_include() {
	fresh
	as "$U" sh -c "printf '[user]\n\tname = team\n' > '$proj/team.gitconfig'"
	ag -C "$proj" config includeIf.onbranch:main.path ../team.gitconfig
	ag -C "$proj" config include.path local.gitconfig
}
s_nul() {
	# A NUL ends a value for git's callers, not the file: git still
	# reads the include after it.
	s_plain
	as "$U" bash -c "printf '[user]\n\tname = x\\0\n[include]\n\tpath = ../nul.gitconfig\n' >> '$proj/.git/config'"
	as "$U" sh -c "printf '[user]\n' > '$proj/nul.gitconfig'"
}
s_wtconfig() { fresh worktree; ag -C "$proj" config extensions.worktreeConfig true; }
s_sub() { fresh submodule; }

# 1. commondir: a copy of the git directory with the payload, and
# .git/commondir pointing at it.
attack commondir s_plain "" "mkdir .evil && cp -r .git/objects .git/refs .git/HEAD .git/config .evil/ && printf '$evil' >> .evil/config && { echo ../.evil > .git/commondir; rm -f .git/commondir; echo ../.evil > .git/commondir; }"
is "$(cat "$proj/.git/commondir")" "." "the main git directory's commondir is held as \".\" (no other)"
ok "the agent's .evil is only a directory of the project" [ -d "$proj/.evil" ]

# 2. .git as a file naming a git directory inside the project.
attack gitfile s_gitfile "" "mkdir .evil && cp -r .bare/objects .bare/refs .bare/HEAD .bare/config .evil/ && printf '$evil' >> .evil/config && { printf 'gitdir: .evil\n' > .git || { rm -f .git && printf 'gitdir: .evil\n' > .git; }; }"
is "$(cat "$proj/.git")" "gitdir: ./.bare" "the gitfile is unchanged"
attack gitfile-target s_gitfile "" "for h in pre-commit post-checkout; do printf '$hook' > .bare/hooks/\$h; chmod +x .bare/hooks/\$h; done; printf '$evil' >> .bare/config"
attack gitfile-replace s_gitfile "" "rm -f .git && cp -r .bare .git && printf '$hook' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout"

# 3. Hooks through core.hooksPath: the repository keeps its hooks in a
# tracked directory (as many do); the agent writes into it, or sets
# hooksPath itself.
attack hookspath s_hooksdir "" "for h in pre-commit post-checkout post-merge reference-transaction; do printf '$hook' > .githooks/\$h; chmod +x .githooks/\$h; done"
attack hookspath-missing s_hooksmissing "" "mkdir -p tools/hooks && for h in pre-commit post-checkout; do printf '$hook' > tools/hooks/\$h; chmod +x tools/hooks/\$h; done"
ok "a missing hooksPath directory is held empty" eval '[ -d "$proj/tools" ] && [ -z "$(ls -A "$proj/tools")" ]'
attack hookspath-set s_plain "" "mkdir -p /tmp/h; git config core.hooksPath ../h; mkdir -p h; printf '$hook' > h/pre-commit; chmod +x h/pre-commit; git config core.hooksPath h"

# 4. fsmonitor (and the rest of the payload) into the configuration.
attack fsmonitor s_plain "" "git config core.fsmonitor '@C@; false'; printf '$evil' >> .git/config; mv .git/config .git/c2; cp .git/c2 .git/config 2>/dev/null; printf '$evil' >> .git/config"

# 5. include and includeIf: a tracked file the configuration includes,
# and an optional one that does not exist yet.
attack includeif s_include "" "printf '$evil' >> team.gitconfig"
attack include-missing s_include "" "printf '$evil' > .git/local.gitconfig"
ok "the missing include is held as an empty file" eval '[ -f "$proj/.git/local.gitconfig" ] && [ ! -s "$proj/.git/local.gitconfig" ]'
attack include-after-nul s_nul "" "printf '$evil' >> nul.gitconfig"

# 6. Worktree configuration (extensions.worktreeConfig) of the main
# worktree and of a linked worktree, and a linked worktree's commondir.
attack config-worktree s_wtconfig "" "printf '$evil' >> .git/config.worktree"
attack linked-config s_wtconfig "wt" "printf '$evil' >> .git/worktrees/wt/config.worktree" wt
attack linked-commondir s_wtconfig "wt" "mkdir .evil && cp -r .git/objects .git/refs .git/HEAD .git/config .evil/ && printf '$evil' >> .evil/config && echo ../../../.evil > .git/worktrees/wt/commondir" wt
attack linked-gitfile s_wtconfig "wt" "mkdir .evil && cp -r .git/objects .git/refs .git/HEAD .git/config .evil/ && printf '$evil' >> .evil/config && printf 'gitdir: ../.evil\n' > wt/.git" wt

# 7. A submodule: its hooks and configuration in .git/modules/sub, and
# its gitfile.
attack submodule-hooks s_sub "" "for h in post-checkout post-merge reference-transaction; do printf '$hook' > .git/modules/sub/hooks/\$h; chmod +x .git/modules/sub/hooks/\$h; done" sub
attack submodule-config s_sub "" "printf '$evil' >> .git/modules/sub/config" sub
attack submodule-gitfile s_sub "" "mkdir .evil && cp -r .git/modules/sub/objects .git/modules/sub/refs .git/modules/sub/HEAD .git/modules/sub/config .evil/ && sed -i '/worktree = /d' .evil/config && printf '$evil' >> .evil/config && printf 'gitdir: ../.evil\n' > sub/.git" sub

# 8. The project itself as a bare repository: with .git broken (HEAD is
# the agent's), git falls back to the directory it stands in.
attack bare-fallback s_plain "" "cp -r .git/objects .git/refs . && cp .git/config config && printf '$evil' >> config && echo 'ref: refs/heads/main' > HEAD && echo broken > .git/HEAD"
ok "the project's HEAD is held as an empty directory" eval '[ -d "$proj/HEAD" ] && [ -z "$(ls -A "$proj/HEAD")" ]'

# 9. rm -rf .git && git init, with the payload in the new configuration.
attack reinit s_plain "" "rm -rf .git; git init -q . ; git config core.fsmonitor '@C@; false'; printf '$evil' >> .git/config"

# The twin: the agent's own git workflow inside a protected project with
# a linked worktree and a submodule, and what the host then sees.
fresh submodule
ag -C "$proj" worktree add -q wt -b wtb
# A commit on the remote the agent has not fetched yet.
rm -rf "$top/seed" && ag clone -q "$remote" "$top/seed"
as "$U" sh -c "echo two > '$top/seed/b.txt'"
ag -C "$top/seed" add b.txt && ag -C "$top/seed" commit -qm two && ag -C "$top/seed" push -q origin main
rm -rf "$top/seed"
id='-c user.name=agent -c user.email=agent@test.invalid'
out=$(r "git fetch -q origin && git $id rebase -q origin/main &&
	git checkout -q -b feature && echo f > f.txt && git add f.txt && git $id commit -qm feature &&
	git checkout -q main && git merge -q --ff-only feature &&
	git pack-refs --all && git branch -q -d feature && echo tmp >> a.txt && git $id stash -q && git stash pop -q && git checkout -q -- a.txt &&
	echo s > sub/new.txt && git -C sub add new.txt && git -C sub $id commit -qm insub &&
	git worktree add -q wt2 -b wt2b && git -C wt2 log -1 --format=%s &&
	git log --format=%s | tr '\n' ' '")
like "$out" "feature add sub two one" "inside: fetch, rebase, branch, commit, merge, pack-refs, branch -d, a submodule commit and a new worktree work"
hg() { env -i PATH=/usr/bin:/bin HOME="$hhome" GIT_CONFIG_NOSYSTEM=1 git -c "safe.directory=$proj" -c "safe.directory=$proj/sub" -C "$proj" "$@"; }
is "$(hg log --format=%s main | tr '\n' ' ')" "feature add sub two one " "host: the human sees the agent's commits"
is "$(hg branch --list feature)" "" "host: the deleted branch is gone"
is "$(hg -C sub log -1 --format=%s)" "insub" "host: the submodule commit shows"
ok "host: the human's git status works in the protected repository" eval 'hg status --porcelain >/dev/null'
is "$(hg status 2>&1 | grep -ci 'fatal\|warning\|error')" "0" "host: without a warning"

# Fail closed: what cannot be held as it is refuses the session with 78
# and one line naming the path.
fresh
refused() { # DESC: the session must be refused with 78 naming $2
	local out rc
	out=$(sess "$U" "$conf" -c 'echo ran' 2>&1); rc=$?
	is "$rc" 78 "$1: refused with 78"
	like "$out" "$2" "$1: the line names it"
	unlike "$out" "ran" "$1: nothing ran"
}
mv "$proj/.git" "$top/outside.git"
as "$U" sh -c "printf 'gitdir: $top/outside.git\n' > '$proj/.git'"
refused "a gitfile naming a git directory outside the project" "project\.protect $proj/\.git: a gitfile naming a git directory outside"
rm -rf "$top/outside.git"
fresh
as "$U" sh -c "echo $top/elsewhere > '$proj/.git/commondir'"
refused "a commondir pointing outside the project" "\.git/commondir: points outside the project"
fresh
mv "$proj/.git/config" "$proj/cfg" && ln -s ../cfg "$proj/.git/config"
refused "a symlinked .git/config" "config in the project is a symlink"
fresh
ag -C "$proj" config include.path ../sub/../x.inc
refused "an include through a missing directory and .." "\"\.\.\" after sub, which is missing"
fresh
as "$U" sh -c "echo x > '$proj/notadir'"
conf2=$SESS_CONF_DIR/git2.conf
sed 's|^  roots = |  protect = {"notadir/x"}\n  roots = |' "$conf" > "$conf2"
out=$(sess "$U" "$conf2" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a protect entry through a file is refused with 78 (never a debug line)"
like "$out" "notadir in the project is not a directory" "... naming the component"
rm -f "$proj/notadir"
is "$(sess "$U" "$conf" -c 'echo ran' 2>&1)" "ran" "twin: the same project without those runs"

done_testing
