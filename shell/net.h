/*
 * net.h: the sandbox's network namespace (run by init, inside, while it
 * still holds CAP_NET_ADMIN in its user namespace).
 */
#ifndef AISB_NET_H
#define AISB_NET_H

#include "policy.h"

/* Bring lo up (one rtnetlink round trip).  0 or -errno (logged). */
int net_lo_up(void);

/*
 * Gated mode: route AISB_SYNTH_NET/AISB_SYNTH_PREFIX to lo and install
 * `table inet aisb` (one libnftnl batch, every ACK read, then read back
 * and compared).  p->net.transparent adds the capture chain that
 * redirects TCP to the synthetic range to 127.0.0.1:AISB_CAPTURE_PORT.
 * 0 or -errno (logged once; the session exits 77).
 */
int net_gated_setup(const struct aisb_policy *p);

/*
 * Dump every nftables table, chain and rule of the calling netns and
 * compare them with what net_gated_setup(p) installs: 0 when identical,
 * -EPROTO (logged: the first difference) when anything differs, is
 * missing or extra, or another -errno when the dump fails.
 */
int net_nft_verify(const struct aisb_policy *p);

#endif
