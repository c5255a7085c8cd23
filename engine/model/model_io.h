/* model_io.h — velocity models: read raw float32, SEG-Y (libsegyio) and Madagascar RSF
 * files, build analytic models (constant, layered, Gaussian anomaly), and write the file
 * formats (for tests, examples and model conversion). Layout everywhere: x fastest, then
 * y, then z (index i + nx*(j + ny*k)), float32 m/s. */
#ifndef FDW_MODEL_IO_H
#define FDW_MODEL_IO_H

#include "spec/spec.h"

/* Check that a model file exists, is readable, has the grid's geometry (file size for raw;
 * SEG-Y inline/crossline counts and samples; RSF n1/n2/n3 and d1/d2/d3 against dx/dy/dz),
 * and that every sample is positive and finite. Fills the min and max velocity.
 * Errors name field (e.g. "velocity.path") and, for bad samples, the first bad index. */
fdw_status fdw_model_scan(const fdw_velocity_spec *v, int nx, int ny, int nz, double dx,
                          double dy, double dz, double *vmin, double *vmax, fdw_error *err);

/* The model file v names, as recorded in info (fdw_model_inspect, e.g. at the daemon's
 * upload), checked against the grid without reading the file: format, geometry, spacing
 * where recorded, a positive finite range. Errors name the spec's velocity field. */
fdw_status fdw_model_check_info(const fdw_velocity_spec *v, const fdw_model_info *info,
                                int nx, int ny, int nz, double dx, double dy, double dz,
                                fdw_error *err);
/* The binary an RSF header names with in= (relative to the header's directory, which it
 * may not leave) into out; *inside = 1 for in="stdin" (the samples follow the header:
 * out is the header itself). Errors name field. */
fdw_status fdw_model_rsf_data(const char *header, const char *field, char *out, size_t cap,
                              int *inside, fdw_error *err);

/* Fill out[nx*ny*nz] with the spec's velocity model (any type). */
fdw_status fdw_model_load(const fdw_spec *spec, float *out, fdw_error *err);

/* Writers. SEG-Y: one trace per (i,j) column (inline = j+1, crossline = i+1), nz samples,
 * sample interval dz expressed in the header as dz*1000 (depth "microseconds"), IBM or
 * IEEE float (IEEE written). RSF: header file path + binary at path + "@". */
fdw_status fdw_model_write_raw(const char *path, const float *v, int nx, int ny, int nz,
                               fdw_error *err);
fdw_status fdw_model_write_segy(const char *path, const float *v, int nx, int ny, int nz,
                                double dx, double dy, double dz, fdw_error *err);
fdw_status fdw_model_write_rsf(const char *path, const float *v, int nx, int ny, int nz,
                               double dx, double dy, double dz, const double origin[3],
                               fdw_error *err);

#endif
