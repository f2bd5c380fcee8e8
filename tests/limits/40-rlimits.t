#!/bin/bash
# rlimits and the /tmp size: a file larger than fsize fails with EFBIG,
# opening more than nofile files fails with EMFILE, no core files, and a
# /tmp filler stops at filesystem.tmp_size with ENOSPC.  Each paired with
# its twin under the limit.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim4 || skip_all "cannot create test user"
lim_need_sessions tlim4

conf=$(lim_conf rl 'nofile = 64' 'fsize = "4M"' 'enforce = "strict"')
tmpconf=$(LIM_TMP_SIZE=8M lim_conf tmp 'fsize = "1G"' 'enforce = "strict"')

lim_run tlim4 "$conf" '/project/lim_tool fill /project/big 8; \
    /project/lim_tool fill /project/small 2; rm -f /project/big /project/small'
like "$LIM_OUT" 'wrote 4194304 errno EFBIG' "writing past fsize = 4M fails with EFBIG at 4M"
like "$LIM_OUT" 'wrote 2097152 errno 0' "a 2M file under fsize is fine"

lim_run tlim4 "$conf" '/project/lim_tool nofile 1000; /project/lim_tool nofile 40; ulimit -n; ulimit -Hn; ulimit -c'
like "$LIM_OUT" 'opened 6[0-9] errno EMFILE' "opening past nofile = 64 fails with EMFILE"
like "$LIM_OUT" 'opened 40 errno 0' "40 files under nofile are fine"
is "$(printf '%s\n' "$LIM_OUT" | tail -n 3 | tr '\n' ' ')" "64 64 0 " \
    "soft and hard nofile are 64; core size is 0"

lim_run tlim4 "$tmpconf" '/project/lim_tool fill /tmp/fill 32; rm -f /tmp/fill; \
    /project/lim_tool fill /tmp/ok 2'
w=$(printf '%s\n' "$LIM_OUT" | sed -n '1s/^wrote \([0-9]*\) errno ENOSPC/\1/p')
ok "it stops at tmp_size = 8M with ENOSPC (wrote ${w:-?})" \
    test -n "$w" -a "${w:-0}" -le $((8 * 1024 * 1024))
like "$LIM_OUT" 'wrote 2097152 errno 0' "2M in /tmp is fine"

done_testing
