#!/bin/bash
# project.protect: .git/hooks and .git/config stay read-only inside,
# whether or not they exist, and cannot be replaced by renaming a parent;
# the rest of the project stays writable; other repositories can be
# listed.  (The attacks on the rest of git's metadata, with a canary the
# human's git would run: 35-git.t.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx3
conf=$(sess_conf protect 'home { path = "tmpfs" }')
proj=$SESS_TOP/tsbx3/project

r() { sess tsbx3 "$conf" -c "cd /project && $1" 2>&1; }

# 1. A real repository: hooks and config exist.
as tsbx3 git -C "$proj" init -q
cfg0=$(sha256sum < "$proj/.git/config")
r 'echo "#!/bin/sh" > .git/hooks/pre-commit' >/dev/null
ok "creating .git/hooks/pre-commit fails (existing hooks)" \
    [ ! -e "$proj/.git/hooks/pre-commit" ]
r 'echo "[core] hooksPath = /tmp" >> .git/config' >/dev/null
is "$(sha256sum < "$proj/.git/config")" "$cfg0" "changing .git/config fails"
r 'git config core.hooksPath /tmp' >/dev/null
is "$(sha256sum < "$proj/.git/config")" "$cfg0" "git config cannot change it either"
out=$(r 'mv .git .git.old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit')
like "$out" "busy" "renaming .git away is refused (EBUSY)"
ok "no replacement hooks dir on the host" eval '[ ! -e "$proj/.git.old" ] && [ ! -e "$proj/.git/hooks/pre-commit" ]'
r 'mv .git/hooks .git/h2' >/dev/null
ok "renaming .git/hooks is refused" eval '[ -d "$proj/.git/hooks" ] && [ ! -e "$proj/.git/h2" ]'
r 'rm -rf .git/hooks; cp -r .git/hooks /tmp/h; ln -sf /tmp/h .git/hooks2' >/dev/null
ok "removing .git/hooks fails" [ -d "$proj/.git/hooks" ]

# The legitimate twins: normal work in the project and in .git.
out=$(r 'echo code > main.c && git add main.c && git -c user.name=a -c user.email=a@b commit -qm one && git log --oneline | wc -l')
is "$out" "1" "git add and commit work inside"
is "$(cat "$proj/main.c")" "code" "the project file shows up on the host"
is "$(as tsbx3 git -C "$proj" log --format=%s 2>/dev/null)" "one" "the commit shows up on the host"

# 2. .git exists, .git/hooks does not.
rm -rf "$proj/.git/hooks"
r 'mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit' >/dev/null
ok "a missing .git/hooks cannot be created with content" \
    [ ! -e "$proj/.git/hooks/pre-commit" ]
ok "it is held as an empty placeholder" eval '[ -d "$proj/.git/hooks" ] && [ -z "$(ls -A "$proj/.git/hooks")" ]'

# 3. No .git at all.
rm -rf "$proj/.git"
out=$(r 'git init -q . ; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo x > .git/config')
ok "without .git, .git/hooks cannot be created" [ ! -e "$proj/.git/hooks" ]
ok "without .git, .git/config cannot be created" [ ! -e "$proj/.git/config" ]
ok "without .git, the project cannot become a bare repository (HEAD held empty)" \
    eval '[ -d "$proj/HEAD" ] && [ -z "$(ls -A "$proj/HEAD")" ]'
is "$(r 'echo still > other && cat other')" "still" \
    "other project files stay writable"

# 4. A symlink on a protected path is refused (the host would follow it).
rm -rf "$proj/.git"
install -d -o tsbx3 -g tsbx3 "$proj/realgit"
ln -s realgit "$proj/.git"
out=$(sess tsbx3 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a symlinked .git is refused with 78"
like "$out" "symlink" "the refusal names the symlink"
rm -f "$proj/.git"
is "$(sess tsbx3 "$conf" -c 'echo ran')" "ran" "without the symlink it runs"

# 5. More repositories listed: "vendor/lib/.git" is held as the
# project's own .git is; a literal entry that goes through a gitfile
# (".git/info" when .git names .bare) is held in the git directory the
# gitfile names.
rm -rf "${proj:?}"/* "$proj"/.[!.]*
install -d -o tsbx3 -g tsbx3 "$proj/vendor" "$proj/vendor/lib"
as tsbx3 git -C "$proj/vendor/lib" init -q
as tsbx3 git init -q --bare "$proj/.bare"
as tsbx3 sh -c "printf 'gitdir: ./.bare\n' > '$proj/.git'"
as tsbx3 git -C "$proj" config core.bare false
conf2=$SESS_CONF_DIR/protect2.conf
sed 's|^  roots = |  protect = {"vendor/lib/.git", ".git/info"}\n  roots = |' "$conf" > "$conf2"
lib0=$(sha256sum < "$proj/vendor/lib/.git/config")
r2() { sess tsbx3 "$conf2" -c "cd /project && $1" 2>&1; }
r2 'echo "[core] fsmonitor = x" >> vendor/lib/.git/config; echo x > vendor/lib/.git/hooks/pre-commit; echo x > .bare/info/attributes2; echo x > .bare/hooks/pre-commit' >/dev/null
is "$(sha256sum < "$proj/vendor/lib/.git/config")" "$lib0" "a listed repository's config stays read-only"
ok "... and its hooks" [ ! -e "$proj/vendor/lib/.git/hooks/pre-commit" ]
ok "an entry through a gitfile is held in the git directory it names" [ ! -e "$proj/.bare/info/attributes2" ]
ok "the gitfile's git directory has its hooks held" [ ! -e "$proj/.bare/hooks/pre-commit" ]
out=$(r2 'cd vendor/lib && echo v > v && git add v && git -c user.name=a -c user.email=a@b commit -qm v && git log --format=%s')
is "$out" "v" "twin: a commit in the listed repository works"

# 6. An entry through a gitfile whose git directory has a longer name
# than the path before the rest of the entry ("vendor/.git/" is 12
# bytes, "vendor-gitdir-long" 18): the rest is joined to the git
# directory whole, not read from the bytes the join has overwritten.
rm -rf "${proj:?}"/* "$proj"/.[!.]*
install -d -o tsbx3 -g tsbx3 "$proj/vendor"
as tsbx3 git init -q --bare "$proj/vendor-gitdir-long"
as tsbx3 sh -c "printf 'gitdir: ../vendor-gitdir-long\n' > '$proj/vendor/.git'"
conf3=$SESS_CONF_DIR/protect3.conf
sed 's|^  roots = |  protect = {"vendor/.git/hooks"}\n  roots = |' "$conf" > "$conf3"
gd0=$(ls -A "$proj/vendor-gitdir-long")
out=$(sess tsbx3 "$conf3" -c 'cd /project && echo x > vendor-gitdir-long/hooks/pre-commit; echo ran' 2>&1)
like "$out" "ran" "a session with the entry through a long-named gitdir runs"
ok "that git directory's hooks are held read-only" \
    [ ! -e "$proj/vendor-gitdir-long/hooks/pre-commit" ]
is "$(ls -A "$proj/vendor-gitdir-long")" "$gd0" "nothing else is created in it"
is "$(sess tsbx3 "$conf3" -c 'cd /project && echo w > vendor/w && cat vendor/w' 2>&1)" "w" \
    "twin: the worktree beside it stays writable"

done_testing
