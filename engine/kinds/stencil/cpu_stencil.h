/* cpu_stencil.h — the stencil kind's CPU hooks (cpu_stencil.c). */
#ifndef FDW_CPU_STENCIL_H
#define FDW_CPU_STENCIL_H

#include "cpu/cpu_kind.h"

extern const fdw_cpu_ops fdw_stencil_cpu;

#endif
