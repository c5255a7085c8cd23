/* mpi_comm.h — the fdw_comm of engine/comm.h over MPI (Open MPI), for fdwave-run. Not part
 * of libfdwave: only the program links MPI, so the library and the daemon never do. */
#ifndef FDW_MPI_COMM_H
#define FDW_MPI_COMM_H

#include "fdwave/comm.h"

/* Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE,
 * PMIx-based launchers PMIX_RANK): fdwave-run then initialises MPI on its own. */
int fdw_mpi_launched(void);

/* MPI_Init (threads: funneled; OpenMP threads never call MPI) and a communicator over
 * MPI_COMM_WORLD with errors returned, not fatal. Returns 0, or non-zero with a message
 * in msg. */
int fdw_mpi_init(int *argc, char ***argv, fdw_comm *comm, char *msg, size_t msglen);

/* Barrier, then MPI_Finalize. */
void fdw_mpi_finalize(void);

/* End every rank at once (MPI_Abort), for a failure that leaves ranks out of step. */
void fdw_mpi_abort(int code);

#endif
