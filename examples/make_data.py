"""Write the small dataset `train_example.py` reads: DIR/images/*.npy and DIR/masks/*.npy.

    python examples/make_data.py data

48 noisy 16x16 images of a bright square and their masks, always the same (seeded).
"""

import os
import sys

import numpy as np


def main(root):
    rng = np.random.default_rng(0)
    for folder in ("images", "masks"):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    for index in range(48):
        mask = np.zeros((16, 16), dtype=np.int64)
        top, left = rng.integers(0, 10, size=2)
        mask[top:top + 6, left:left + 6] = 1
        image = mask + rng.normal(0.0, 0.3, mask.shape)
        np.save(os.path.join(root, "images", "%03d.npy" % index), image.astype(np.float32))
        np.save(os.path.join(root, "masks", "%03d.npy" % index), mask)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data")
