#pragma once
// weft::mpi: MPI for ULTs (docs/mpi.md). Link weft::mpi; built when CMake
// finds an MPI.

#include "weft/mpi/buffer.hpp"
#include "weft/mpi/collectives.hpp"
#include "weft/mpi/environment.hpp"
#include "weft/mpi/error.hpp"
#include "weft/mpi/point_to_point.hpp"
#include "weft/mpi/request.hpp"
#include "weft/mpi/sample_sort.hpp"
