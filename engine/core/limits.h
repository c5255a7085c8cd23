/* limits.h — the engine's fixed bounds, in one place: stencil order and radius, devices
 * per run, path lengths. Every array sized by them is checked against them at parse. */
#ifndef FDW_LIMITS_H
#define FDW_LIMITS_H

#define FDW_MAX_ORDER 16
#define FDW_MAX_RADIUS (FDW_MAX_ORDER / 2)
#define FDW_MAX_DEVICES 64
#define FDW_PATH_MAX 4096

#endif
