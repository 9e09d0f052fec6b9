import os
import sys

import torch

if any(name.startswith("DETERMINISM_TRACE") for name in os.environ):
    sys.exit(3)  # stands in for a program that breaks under the tracer
torch.manual_seed(0)
print("step 0 loss %.10f" % torch.rand(1).item())
