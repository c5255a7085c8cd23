/* positioning.h — where a source injects and a receiver samples the grid: the taps
 * (grid index, weight) of a position, by Kaiser-windowed sinc (Hicks 2002, the default)
 * or trilinear interpolation, and the receiver "rows" that keep every recording
 * independent of how the grid is cut into slabs.
 *
 * Sinc: along each axis where the position is off the grid, the 2R nodes nearest to it
 * (R = FDW_SINC_RADIUS) get w(d) = sinc(d) * I0(b sqrt(1 - (d/R)^2)) / I0(b), d the
 * node's distance from the position in grid points, b = FDW_SINC_BETA (Hicks' table
 * for R = 4); on an axis where the position is on a node the weight is 1 there and
 * nothing elsewhere, so an on-grid position has exactly one tap of weight 1. The 3-D
 * weight is the product of the three axes' weights. Below a free surface (plane k = 0,
 * u = 0) the image method applies along z: a weight at k = -m (above the surface) is
 * subtracted at k = +m, and the weight at k = 0 is dropped (the plane is held at zero).
 * Nodes beyond the other faces of the grid are dropped (the interpolation is truncated).
 *
 * Rows: a receiver's taps are split by z plane; each (receiver, plane) pair is one row,
 * recorded by the backends as if it were a receiver of its own (it lies in one slab, so
 * one slab records it whole, on any number of devices or ranks), and a receiver's trace
 * is the sum of its rows in plane order, formed on the host (fdw_receivers_combine). So
 * 1 slab, N slabs, N ranks, CPU and GPU give the same bits. */
#ifndef FDW_POSITIONING_H
#define FDW_POSITIONING_H

#include "run/backend.h"

#define FDW_SINC_RADIUS 4
#define FDW_SINC_BETA 6.31
/* The most taps one position can have: (2R)^3. */
#define FDW_MAX_TAPS (8 * FDW_SINC_RADIUS * FDW_SINC_RADIUS * FDW_SINC_RADIUS)

/* The taps of pos (metres) with interpolation interp (FDW_INTERP_SINC or _LINEAR) on
 * spec's grid, in z-plane order (k outermost, then j, then i); owner copied into each.
 * Returns the number written to taps[FDW_MAX_TAPS] (0 when every weight vanished). */
int fdw_position_taps(const fdw_spec *spec, const double pos[3], fdw_interp interp, int owner,
                      fdw_tap *taps);

/* 1 when pos lies on a free surface (spec's top plane, k = 0, with a free surface): the
 * pressure there is held at zero, so a source there radiates nothing and a receiver there
 * records nothing (every tap's weight vanishes); the wave kinds' specs refuse such a
 * source, warn of such receivers, and refuse them where their data are to be migrated. */
int fdw_position_on_free_surface(const fdw_spec *spec, const double pos[3]);

/* The taps pos gets at most (the product of the three axes' node counts) and, in
 * *planes, the z planes they read (1 on a node in z; 2 linear; up to 2R sinc): the rows a
 * receiver there records. */
int fdw_position_extent(const fdw_spec *spec, const double pos[3], fdw_interp interp,
                        int *planes);

/* The rows spec's receivers record (fdw_spec.nrec_rows), or where the spec does not list
 * them (a survey's moving spread) the most they can have, 2R per receiver. */
uint64_t fdw_receiver_rows(const fdw_spec *spec);

/* Fill prob's source taps (nsrc_taps, src_taps) and receiver rows (nreceivers = rows,
 * nrec_taps, rec_taps owned by rows; nrec_out receivers and rec_rows) from spec. */
fdw_status fdw_position_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err);

/* The receivers a problem records: nrec_out, or nreceivers when it has no rows (a
 * problem built by hand, one row per receiver). */
int fdw_problem_receivers(const fdw_problem *p);

/* The sources the wavelets hold a row of nt samples for: the largest source tap owner
 * plus one (0 without taps). */
int fdw_problem_sources(const fdw_problem *p);

/* traces[r * ns + s] = the sum over receiver r's rows, in order, of rows[row * ns + s]
 * (trace-major, as the gather holds them). traces and rows may not overlap. */
void fdw_receivers_combine(const fdw_problem *p, const float *rows, long ns, float *traces);

#endif
