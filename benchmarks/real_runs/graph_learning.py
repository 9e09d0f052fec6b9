"""PyG's link-prediction example (pyg-team/pytorch_geometric ``examples/link_pred.py``): a
two-layer GCN encoder with a dot-product decoder, trained on Cora's edges split by
``T.RandomLinkSplit``, with a fresh ``negative_sampling`` every epoch.  Unseeded: the edge
split (``RandomLinkSplit``: torch ``randperm``), the GCN's initial weights (torch) and the
negative edges (``negative_sampling(method='sparse')`` draws with Python's ``random.sample``).
Data: instead of downloading Cora, ``adapt`` writes a synthetic graph in Planetoid's raw
format (``ind.cora.*`` pickles, 700 nodes, 7 classes, 100 binary features, a stochastic block
model; drawn from ``numpy.random.default_rng(0)``, so identical in every run) where the script
looks for it; the script itself is unchanged but for the number of epochs."""

import pickle

from real_runs import replace

REPO = "pyg-team/pytorch_geometric"
COMMIT = "5c6461b2305ad068a6d61165b3c55852a11aaa41"
FILES = {"examples/link_pred.py": "fd179e4c25d67cea6681bd65cdb4bec5baeb6c69",
         "pyproject.toml": "7e1d84a2014ab15f2b09596c9c424532cee5a234"}
REQUIRES = ("torch", "torch_geometric", "scikit-learn", "numpy")
WORKDIR = "examples"
COMMAND = ("link_pred.py",)
# Default metric: "Epoch: 001, Loss: 0.6931, Val: 0.7012, Test: 0.6998" -> the loss.
VERIFY_ARGS = ()
EXPECT_BEFORE = "diverges"


def _write_planetoid_cora(raw):
    """A Cora-shaped graph in Planetoid's raw files (the layout ``read_planetoid_data``
    reads): 140 labelled training nodes (x, y), 600 nodes in allx/ally, 100 test nodes
    (tx, ty, in the shuffled order of ``test.index``), ``graph`` an adjacency dict."""
    import numpy as np

    rng = np.random.default_rng(0)
    nodes, classes, features = 700, 7, 100
    label = rng.integers(0, classes, nodes)
    # Stochastic block model: denser within a class.
    same = label[:, None] == label[None, :]
    upper = np.triu(rng.random((nodes, nodes)) < np.where(same, 0.03, 0.002), k=1)
    adjacency = upper | upper.T
    graph = {i: [int(j) for j in np.flatnonzero(adjacency[i])] for i in range(nodes)}
    # Bag of words: each class favours its own block of words.
    topic = (np.arange(features)[None, :] // (features // classes + 1)) == label[:, None]
    x = (rng.random((nodes, features)) < np.where(topic, 0.15, 0.02)).astype(np.float32)
    y = np.eye(classes, dtype=np.int32)[label]
    test_index = 600 + rng.permutation(100)
    raw.mkdir(parents=True)
    files = {"x": x[:140], "y": y[:140], "allx": x[:600], "ally": y[:600], "tx": x[test_index],
             "ty": y[test_index], "graph": graph}
    for name, value in files.items():
        with open(raw / ("ind.cora." + name), "wb") as f:
            pickle.dump(value, f, protocol=2)
    (raw / "ind.cora.test.index").write_text("".join("%d\n" % i for i in test_index))


def adapt(root):
    # Data source: a synthetic Cora where Planetoid looks for its raw files (no download).
    _write_planetoid_cora(root / "data" / "Planetoid" / "Cora" / "raw")
    # Size only: 20 epochs instead of 100.
    replace(root / "examples/link_pred.py", "for epoch in range(1, 101):", "for epoch in range(1, 21):")
