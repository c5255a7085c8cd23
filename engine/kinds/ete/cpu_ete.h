/* cpu_ete.h — the ETE kind's hooks for the CPU backend (cpu_ete.c): per slab its bin index
 * in the field buffers' layout, and the update of ete.h on a range of planes. */
#ifndef FDW_CPU_ETE_H
#define FDW_CPU_ETE_H

#include "cpu/cpu_kind.h"

extern const fdw_cpu_ops fdw_ete_cpu;

#endif
