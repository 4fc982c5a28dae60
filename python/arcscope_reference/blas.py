"""Debian's PyTorch calls whatever libblas.so.3 is selected; the reference (netlib) BLAS is ~30x slower than OpenBLAS
here. prefer_openblas(threads) re-executes this process with Debian's libopenblas0-pthread when it is installed (and
does nothing otherwise), so training and benchmarks get a fast BLAS without changing the system's choice."""
import os
import sys

OPENBLAS_DIR = "/usr/lib/x86_64-linux-gnu/openblas-pthread"


def prefer_openblas(threads):
    path = os.environ.get("LD_LIBRARY_PATH", "")
    if os.path.isdir(OPENBLAS_DIR) and OPENBLAS_DIR not in path.split(":"):
        env = dict(os.environ, LD_LIBRARY_PATH=OPENBLAS_DIR + (":" + path if path else ""),
                   OPENBLAS_NUM_THREADS=str(threads))
        os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)  # the same command, `-m` included
