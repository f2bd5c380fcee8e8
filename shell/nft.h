/*
 * nft.h: `table inet aisb`, the nftables ruleset of the sandbox's
 * network namespace (run by init, inside, with CAP_NET_ADMIN there).
 */
#ifndef AISB_NFT_H
#define AISB_NFT_H

#include "policy.h"

/*
 * Install `table inet aisb` in the calling netns: one libnftnl batch,
 * every ACK read, then read back and compared (as nft_verify).
 * p->net.transparent adds the capture chain that redirects TCP to the
 * synthetic range to 127.0.0.1:AISB_CAPTURE_PORT.  0 or -errno (logged
 * once).
 */
int nft_install(const struct aisb_policy *p);

/*
 * Dump every nftables table, chain and rule of the calling netns and
 * compare them with what nft_install(p) installs: 0 when identical,
 * -EPROTO (logged: the first difference) when anything differs, is
 * missing or extra, or another -errno when the dump fails.
 */
int nft_verify(const struct aisb_policy *p);

#endif
