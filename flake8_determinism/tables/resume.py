"""Checkpoints a run resumes from (DET110): what restores training state, what saves and restores
the RNG states, and the frameworks that do both for you."""

# ``optimizer.load_state_dict(ckpt["optimizer"])``: the run continues a training, it does not
# start from pretrained weights.
RESTORE_METHOD = "load_state_dict"
OPTIMIZER_WORDS = ("optim",)  # ``optimizer``, ``optim``, ``optimizer_state_dict``
CHECKPOINT_SAVERS = frozenset({"torch.save"})
# Training after the restore (also any call whose name starts with ``train``/``_train``).
TRAINING_METHODS = frozenset({"step", "backward", "fit"})


def trains(method: str) -> bool:
    """A call of this method name trains (after a restore: the run resumes): ``optimizer.step()``,
    ``loss.backward()``, ``model.fit()``, ``train_one_epoch(...)``."""
    return method in TRAINING_METHODS or method.lstrip("_").startswith("train")

# Saving or restoring an RNG state: any one of them means the run takes care of its streams.
RNG_STATE_CALLS = frozenset({
    "torch.get_rng_state", "torch.set_rng_state", "torch.random.get_rng_state", "torch.random.set_rng_state",
    "torch.cuda.get_rng_state", "torch.cuda.set_rng_state", "torch.cuda.get_rng_state_all",
    "torch.cuda.set_rng_state_all", "torch.cuda.random.get_rng_state_all", "torch.cuda.random.set_rng_state_all",
    "numpy.random.get_state", "numpy.random.set_state", "random.getstate", "random.setstate",
})
RNG_STATE_METHODS = frozenset({"get_state", "set_state", "getstate", "setstate"})  # on RNG objects
RESTORING_RNG = frozenset(name for name in RNG_STATE_CALLS if "set" in name.rsplit(".", 1)[-1])

# Frameworks whose checkpoints hold the RNG states (Lightning's ``fit(ckpt_path=)``, HF
# ``Trainer`` ``rng_state.pth``, accelerate ``save_state``/``load_state``, mmengine's runner):
# a script built on them is left alone.
FRAMEWORK_ROOTS = frozenset({"lightning", "pytorch_lightning", "accelerate", "mmengine", "transformers", "trl",
                             "sentence_transformers"})
