"""Writes the ids of gather-index-range*.test into DIR (Inputs/
embedding_padding.mlir: a 10-row table, ids of shape [2, 5]):

    index_range.py DIR
        big.npy       one id of 1e9 (PyTorch: IndexError)
        negative.npy  one id of -11 (below ONNX's [-10, 10))
        edges.npy     the ends of the range, 9 and -10, and the padding id 3
"""
import os
import sys

import numpy as np


def main(directory):
    def save(name, ids):
        np.save(os.path.join(directory, name), np.array(ids, dtype=np.int64))

    save("big.npy", [[0, 1, 2, 3, 1000000000], [0, 0, 0, 0, 0]])
    save("negative.npy", [[0, 1, 2, 3, -11], [0, 0, 0, 0, 0]])
    save("edges.npy", [[9, -10, 3, 0, -1], [1, 2, 3, 4, 5]])


if __name__ == "__main__":
    main(sys.argv[1])
