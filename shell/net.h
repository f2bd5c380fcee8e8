/*
 * net.h: the sandbox's network namespace (run by init, inside, while it
 * still holds CAP_NET_ADMIN in its user namespace).
 */
#ifndef AISB_NET_H
#define AISB_NET_H

#include "policy.h"

/* Bring lo up.  0 or -errno (logged). */
int	net_lo_up(void);

/*
 * Gated mode: route AISB_SYNTH_NET/AISB_SYNTH_PREFIX to lo and install
 * `table inet aisb` (one libnftnl batch, every ACK read, then read back
 * and compared).  0 or -errno (logged; the session exits 77).
 */
int	net_gated_setup(const struct aisb_policy *p);

#endif
