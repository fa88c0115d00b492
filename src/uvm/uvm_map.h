/* The paging layer's maps from 64-bit keys to 64-bit values (VA block
 * number -> struct uvm_block *, group number -> residency bits): the
 * shared open-addressing map of src/core/u64map.h under the names uvm.c
 * uses. Key and value sit side by side, so a lookup, made on every access
 * of managed memory, touches one host cache line. */
#ifndef GPUVM_UVM_MAP_H
#define GPUVM_UVM_MAP_H

#include "core/u64map.h"

#define uvm_map u64map
#define uvm_map_entry u64map_entry
#define uvm_map_init u64map_init
#define uvm_map_free u64map_free
#define uvm_map_clear u64map_clear
#define uvm_map_find u64map_find
#define uvm_map_insert u64map_insert

#endif
