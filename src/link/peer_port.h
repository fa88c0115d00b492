/* A GPU's port to the device memory of its peers (cudaDeviceEnablePeerAccess):
 * the seam between the SM layer, which meets a sector of a
 * GPUVM_ALLOC_PEER allocation, and whatever times its crossing of the
 * GPU-GPU route (src/system/peer_access.c on a system of several GPUs).
 *
 * Contract:
 *  - Owns: nothing; a struct of one function pointer fixed when peer
 *    access is first enabled on the GPU (NULL in struct sm_ports before,
 *    and always on a system of one GPU).
 *  - Requests: access(port, peer, addr, write, t, bytes): one request of
 *    bytes at addr of GPU peer's device memory (the GPUVM_ALLOC_PEER
 *    entry's peer_device, which the SM layer found with the entry: the
 *    port does not look the allocation up again), leaving the SM side at
 *    t (the accessing GPU's cycles); answers when its data is back (a
 *    load) or it has reached the peer (a store, an atomic's answer with
 *    it).
 *  - Guarantees: no fault, no migration; the port books the route's lanes
 *    shared with peer copies and remote mappings (link/peer_link.h). */
#ifndef GPUVM_LINK_PEER_PORT_H
#define GPUVM_LINK_PEER_PORT_H

#include <stdbool.h>
#include <stdint.h>

struct peer_port {
	double (*access)(struct peer_port *p, uint32_t peer, uint64_t addr, bool write, double t,
			 uint32_t bytes);
};

#endif
