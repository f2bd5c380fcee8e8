/*
 * fuzz_dns.c: the DNS stub's query parser and answers (gate/dns.c,
 * gate/stub.c) and the resolver's answer parser, on arbitrary packets.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct aisb_hostrule allow[] = {
    {.host = "api.test"},
    {.host = "*.svc.test"},
};
static struct aisb_hostrule deny[] = {{.host = "bad.svc.test"}};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct aisb_policy pol;
	static uint8_t out[4096 + 64];
	struct dns_addr a[GATE_MAX_ADDRS];
	uint32_t ttl;
	int rcode, n;
	uint16_t id = size >= 2 ? (uint16_t)(data[0] << 8 | data[1]) : 0;

	pol.net.allow = allow;
	pol.net.nallow = 2;
	pol.net.deny = deny;
	pol.net.ndeny = 1;
	n = stub_answer(&pol, data, size, out, sizeof(out));
	if (n > (int)sizeof(out))
		__builtin_trap();
	(void)dns_parse_answer(data, size, id, "api.test", DNS_T_A, a,
	    GATE_MAX_ADDRS, &rcode, &ttl);
	(void)dns_parse_answer(data, size, id, "x.svc.test", DNS_T_AAAA, a,
	    GATE_MAX_ADDRS, &rcode, &ttl);
	/* Keep the synthetic table bounded across runs. */
	static unsigned runs;
	if (++runs % 4096 == 0)
		synth_reset();
	return 0;
}
