/*
 * net.h: the sandbox's network namespace (run by init, inside, while it
 * still holds CAP_NET_ADMIN in its user namespace).
 */
#ifndef AISB_NET_H
#define AISB_NET_H

#include "policy.h"

/* The loopback device is ifindex 1 in every netns (LOOPBACK_IFINDEX). */
#define NET_LO_IFINDEX 1

/* Bring lo up (one rtnetlink round trip).  0 or -errno (logged). */
int net_lo_up(void);

/*
 * Gated mode: route AISB_SYNTH_NET/AISB_SYNTH_PREFIX to lo and install
 * `table inet aisb` (nft_install).  0 or -errno (logged once; the
 * session exits 77).
 */
int net_gated_setup(const struct aisb_policy *p);

#endif
