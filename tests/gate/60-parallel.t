#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# Load: 200 parallel transfers (half absolute-URI, half CONNECT) all
# complete byte-identical; the relay holds up and the gate survives.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

size=300000
python3 -c "import sys; sys.stdout.buffer.write((bytes(range(256))*256*8)[:$size])" > "$T/want"
want=$(sha256sum < "$T/want" | cut -d' ' -f1)
mkdir "$T/par"
gin bash -c '
	for i in $(seq 1 200); do
		p=""; [ $((i % 2)) = 0 ] && p=-p
		curl -sS --max-time 60 --proxy http://127.0.0.1:3128 $p \
		    -o "'"$T"'/par/$i" "http://origin.tgat.test:23080/bytes/'"$size"'" &
	done
	wait'
good=0
for i in $(seq 1 200); do
	[ -f "$T/par/$i" ] && [ "$(sha256sum < "$T/par/$i" | cut -d' ' -f1)" = "$want" ] && good=$((good + 1))
done
is "$good" "200" "200 parallel transfers, all byte-identical"
n=$(grep -oE "close proxy name=origin.tgat.test port=23080 address=127.0.0.2 up=[0-9]+ down=[0-9]+" "$T/gate.log" |
    awk -F'down=' -v size="$size" '$2 > size' | wc -l)
is "$n" "200" "each transfer logged its close with the bytes it carried"
ok "the gate is still running" gt_gate_alive
done_testing
