import numpy as np

for step in range(3):
    print("step %d loss %.10f" % (step, np.random.rand()))  # NumPy is never seeded
