"""TilePartitioner, as NDSL's: rank r of an NX x NY tile sits at column r % NX and row
r // NX, and its neighbours wrap around the tile (NDSL's tile is doubly periodic)."""

#: the eight neighbours, as (di, dj): NDSL's WEST, EAST, NORTH, SOUTH and the corners
DIRECTIONS = ((-1, 0), (1, 0), (0, 1), (0, -1), (-1, 1), (1, 1), (-1, -1), (1, -1))


class Boundary:
    """The neighbour of `from_rank` in direction (di, dj)."""

    def __init__(self, from_rank, to_rank, direction):
        self.from_rank = from_rank
        self.to_rank = to_rank
        self.direction = direction
        self.n_clockwise_rotations = 0  # one tile: never rotated


class TilePartitioner:
    def __init__(self, layout):
        self.layout = tuple(int(n) for n in layout)

    @property
    def total_ranks(self):
        return self.layout[0] * self.layout[1]

    def subtile_index(self, rank):
        """(row, column) of a rank, as NDSL's."""
        return rank // self.layout[0], rank % self.layout[0]

    def boundary(self, direction, rank):
        nx, ny = self.layout
        row, col = self.subtile_index(rank)
        di, dj = direction
        return Boundary(rank, ((row + dj) % ny) * nx + (col + di) % nx, direction)
