"""MPIComm, as NDSL's: mpi4py's COMM_WORLD behind NDSL's Comm methods. Without mpi4py
(CI installs none) one process is rank 0 of 1 and its messages go to itself, in memory;
a job of several processes then refuses to communicate from Python."""
import os

import numpy as np

try:
    from mpi4py import MPI
except ImportError:  # the double runs without mpi4py
    MPI = None


class _Done:
    def __init__(self, finish=None):
        self._finish = finish

    def wait(self):
        if self._finish is not None:
            self._finish()
            self._finish = None


class MPIComm:
    def __init__(self):
        self._comm = MPI.COMM_WORLD if MPI is not None else None
        self._mailbox = {}

    def Get_rank(self):
        if self._comm is not None:
            return self._comm.Get_rank()
        return 0

    def Get_size(self):
        if self._comm is not None:
            return self._comm.Get_size()
        return 1

    def _alone(self, dest):
        size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMI_SIZE", "1")))
        if size != 1 or dest != 0:
            raise RuntimeError("the NDSL test double's MPIComm needs mpi4py to exchange between processes")

    def Isend(self, sendbuf, dest, tag=0):
        if self._comm is not None:
            return self._comm.Isend(sendbuf, dest=dest, tag=tag)
        self._alone(dest)
        self._mailbox.setdefault(tag, []).append(np.array(sendbuf, copy=True))
        return _Done()

    def Irecv(self, recvbuf, source, tag=0):
        if self._comm is not None:
            return self._comm.Irecv(recvbuf, source=source, tag=tag)
        self._alone(source)

        def finish():
            recvbuf[...] = self._mailbox[tag].pop(0)

        return _Done(finish)
