#!/bin/bash
# tests/demo.sh: what `make demo` shows.  Until the sandbox lands it shows
# the merged policy of etc/aisb/aisb.conf.
set -eu
: "${BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
src=$(cd "$(dirname "$0")/.." && pwd)
echo "== aisb-shell --version"
"$BUILD/bin/aisb-shell" --version
echo "== aisb-shell --config etc/aisb/aisb.conf --print-policy"
"$BUILD/bin/aisb-shell" --config "$src/etc/aisb/aisb.conf" --print-policy
