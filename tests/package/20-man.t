#!/bin/bash
# The man pages: each exists, is clean under mandoc -Tlint, and documents
# what the code offers (every admin option of aisb-shell, the exit
# statuses, the pam_aisb options).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

command -v mandoc >/dev/null || skip_all "mandoc is not installed (tests/deps.d/docs.txt)"
src=$AISB_SRC
for m in docs/aisb-shell.8 docs/aisb.conf.5 docs/pam_aisb.8; do
	if [ ! -f "$src/$m" ]; then
		fail "$m exists"
		continue
	fi
	out=$(mandoc -Tlint -Wwarning "$src/$m" 2>&1)
	is "$out" "" "mandoc -Tlint -Wwarning $m is clean"
	out=$(mandoc -Tutf8 "$src/$m" 2>&1 >/dev/null)
	is "$out" "" "$m renders without a message"
done
# Every page the Makefile installs is linted (make lint uses docs/*.[58]).
for m in "$src"/docs/*.[58]; do
	case "${m##*/}" in aisb-shell.8|aisb.conf.5|pam_aisb.8) continue ;; esac
	out=$(mandoc -Tlint -Wwarning "$m" 2>&1)
	is "$out" "" "mandoc -Tlint -Wwarning ${m##*/} is clean"
done

page=$src/docs/aisb-shell.8
# Every long option that args.c accepts is in the SYNOPSIS and described.
opts=$(grep -o '"--[a-z][a-z-]*"' "$src/shell/args.c" | tr -d '"' | sort -u)
[ -n "$opts" ] || fail "found the options in shell/args.c"
for o in $opts; do
	# ".Fl \-doctor" renders as --doctor: Fl adds the first hyphen.
	esc=$(printf '%s' "${o#-}" | sed 's/-/\\-/g')
	syn=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$page" | grep -cF -- "$esc")
	ok "aisb-shell(8) has $o in SYNOPSIS" test "$syn" -ge 1
	body=$(sed -n '/^\.Sh DESCRIPTION/,$p' "$page" | grep -cF -- "Fl $esc")
	ok "aisb-shell(8) describes $o" test "$body" -ge 1
done
# The shell forms aisb-shell takes as a login shell.
for f in c l i s; do
	ok "aisb-shell(8) documents -$f" grep -q "^\.It Fl $f\\b" "$page"
done
txt=$(mandoc -Tutf8 "$page" | col -b)
sect=$(printf '%s\n' "$txt" | sed -n '/^EXIT STATUS/,/^EXAMPLES/p')
for st in 2 77 78 '128\+'; do
	like "$sect" "(^|[^0-9])$st([^0-9]|\$)" "aisb-shell(8) EXIT STATUS lists $st"
done
if [ -f "$src/docs/limits.md" ]; then
	tst=$(grep -oE 'timeout[^.]*(exit|status)[^0-9]*[0-9]+' "$src/docs/limits.md" |
	    grep -oE '[0-9]+$' | head -n1)
	if [ -n "$tst" ]; then
		like "$sect" "(^|[^0-9])$tst([^0-9]|\$)" "the timeout status $tst of docs/limits.md is in EXIT STATUS"
	else
		skip "the timeout status is in EXIT STATUS" "docs/limits.md states no timeout status"
	fi
else
	skip "the timeout status is in EXIT STATUS" "docs/limits.md is not on main yet"
fi
like "$txt" "never list aisb-shell|Never list aisb-shell" "aisb-shell(8) warns against /etc/shells"

pam=$src/docs/pam_aisb.8
for o in debug conf; do
	ok "pam_aisb(8) documents the option $o" grep -q "^\.It Cm $o\\b" "$pam"
done
ptxt=$(mandoc -Tutf8 "$pam" | col -b)
like "$ptxt" "does not stop" "pam_aisb(8) states the sshd caveat"
done_testing
