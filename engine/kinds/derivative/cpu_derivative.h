/* cpu_derivative.h — the derivative kind's CPU hooks (cpu_derivative.c). */
#ifndef FDW_CPU_DERIVATIVE_H
#define FDW_CPU_DERIVATIVE_H

#include "cpu/cpu_kind.h"

extern const fdw_cpu_ops fdw_derivative_cpu;

#endif
