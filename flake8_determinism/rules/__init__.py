"""Every rule, one class per module named after its code (``det104.py`` holds DET104);
``common/`` holds what several rules share (the run, DataLoaders, cuDNN flags, stochastic
layers, the fix vocabulary).  ``registry.py`` lists them all: this package imports nothing,
so a shared module below the rules never loads a rule."""
