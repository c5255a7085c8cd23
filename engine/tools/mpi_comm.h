/* mpi_comm.h — the fdw_comm of engine/comm.h over MPI (Open MPI), for fdwave-run. Not part
 * of libfdwave: only the program links MPI, so the library and the daemon never do. */
#ifndef FDW_MPI_COMM_H
#define FDW_MPI_COMM_H

#include "fdwave/comm.h"

/* Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE,
 * PMIx-based launchers PMIX_RANK): fdwave-run then initialises MPI on its own. */
int fdw_mpi_launched(void);

/* Whether ranks hand GPU memory to MPI directly (fdw_comm.device_buffers), as
 * fdwave-run --cuda-aware-mpi says: AUTO when the MPI library reports CUDA support, ON
 * insists on it (an MPI library without it is an error), OFF stages the planes through
 * pinned host memory. */
typedef enum { FDW_MPI_CUDA_AUTO = 0, FDW_MPI_CUDA_ON, FDW_MPI_CUDA_OFF } fdw_mpi_cuda_aware;

/* MPI_Init (threads: funneled; OpenMP threads never call MPI) and a communicator over
 * MPI_COMM_WORLD with errors returned, not fatal. Returns 0; -1 with a message in msg
 * when MPI could not start; 1 with a message when it started but cuda_aware cannot be
 * had (every rank alike: comm->rank is set, so rank 0 can say it, then every rank calls
 * fdw_mpi_finalize). */
int fdw_mpi_init(int *argc, char ***argv, fdw_mpi_cuda_aware cuda_aware, fdw_comm *comm,
                 char *msg, size_t msglen);

/* Barrier, then MPI_Finalize. */
void fdw_mpi_finalize(void);

#endif
