/* The GPU-GPU links of a system: NVLink between two GPUs, NVSwitch ports
 * of every GPU, as lanes that peer copies book (cudaMemcpyPeer).
 *
 * Contract:
 *  - Owns: one lane (link_lane.h, bulk intervals only) per direction of
 *    each direct NVLink, and an egress and an ingress lane per GPU on an
 *    NVSwitch; the route of each ordered GPU pair.
 *  - Requests: peer_link_copy books a copy of bytes from GPU s to GPU d
 *    ready at t (seconds) and answers its end. Over a direct NVLink it
 *    takes its direction's lane; through a switch it takes s's egress port
 *    and d's ingress port (the switch itself is non-blocking: NVSwitch's
 *    all-to-all, each GPU limited by its own links). The rate is the
 *    description's per-direction bandwidth times the links ganged
 *    (nvlink: per pair; nvswitch: per GPU), raw: no achieved fraction is
 *    applied, as no measured peer rate of these parts has been read yet
 *    (docs/systems.md). The fixed time of a copy is the caller's (its
 *    cudaMemcpy's, pcie.copy_latency_us) plus the link's latency_ns where
 *    the file gives one.
 *  - May call: link_lane.h (its packet side, mem/server_pool.h, stays
 *    unused: peer copies are bulk); it reads the system description's
 *    links (their types only).
 *  - Guarantees: two copies sharing a lane in the same direction
 *    serialise; copies on disjoint lanes overlap. Through a switch the
 *    egress is booked first and the ingress from its start: a copy held
 *    at the ingress ends later, but its egress booking is not moved (an
 *    approximation that only matters when several GPUs send to one). */
#ifndef GPUVM_LINK_PEER_LINK_H
#define GPUVM_LINK_PEER_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/sysdesc.h"
#include "link/link_lane.h"

struct peer_route {
	struct link_lane *out, *in; /* NULL out: no GPU-GPU link (host-staged) */
	double seconds_per_byte;
	double latency_seconds;
};

struct peer_link {
	uint32_t n_gpus;
	struct peer_route *routes; /* [s * n_gpus + d] */
	struct link_lane *lanes;
	uint32_t n_lanes;
	bool oom;
};

int peer_link_init(struct peer_link *pl, const struct gpuvm_sysdesc *desc);
void peer_link_free(struct peer_link *pl);
/* Whether a GPU-GPU link joins s and d. */
static inline bool peer_link_joined(const struct peer_link *pl, uint32_t s, uint32_t d)
{
	return pl->routes[s * pl->n_gpus + d].out != 0;
}
/* A copy of bytes from s to d, ready at t seconds, fixed_seconds of call
 * overhead after it: when it is done (seconds). Only where joined. */
double peer_link_copy(struct peer_link *pl, uint32_t s, uint32_t d, double t, uint64_t bytes,
		      double fixed_seconds);

#endif
