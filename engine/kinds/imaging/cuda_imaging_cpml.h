/* cuda_imaging_cpml.h — the imaging kinds' CPML on one GPU (imaging_cpml.h states it; the
 * CPU engine's is cpu_imaging_cpml.c): its coefficients in device memory and the kernels'
 * calls, the forward recursion by the acoustic kind's kernels (fdwk_pml_psi before the
 * update, fdwk_pml_zeta through the update's arguments), the layer term, its product and
 * the transposed step by kernels/imaging's. Sets and terms are device arrays laid out as
 * imaging_cpml.h says; fields are interior origins. Functions return 0 or a CUDA error. */
#ifndef FDW_CUDA_IMAGING_CPML_H
#define FDW_CUDA_IMAGING_CPML_H

#include "kinds/imaging/imaging_cpml.h"

#include "acoustic/fdwk_acoustic.h"
#include "imaging/fdwk_img_cpml.h"

typedef struct img_gpu_pml {
    img_pml g;                 /* the layout (g.on = 0: no CPML, nothing below) */
    fdwk_img_pml k;            /* the kernels' view, coefficients on the device */
    float *ca[3], *cb[3];      /* a and b per axis (device; NULL where no layer) */
} img_gpu_pml;

/* The CPML of problem p for the fields of layout L: its coefficients uploaded, their
 * bytes added to *bytes. */
int img_gpu_pml_create(img_gpu_pml *m, const fdw_problem *p, const fdwk_layout *L,
                       uint64_t *bytes);
void img_gpu_pml_destroy(img_gpu_pml *m);
/* The forward step's terms of set (psi, zeta) from u into out, with the update that a
 * describes and the caller then issues: the psi pass now, and in pa[] and a->pml the
 * zeta passes fdwk_acoustic_step runs after the update. v: (v dt)^2. */
int img_gpu_pml_forward(const img_gpu_pml *m, float *set, const float *u, float *out,
                        const float *v, fdwk_pml_args pa[3], fdwk_fd_args *a, fdwk_stream s);

#endif
