"""A character-level CNN text classifier (Zhang et al. 2015) trained on AG's News
(srviest/char-cnn-text-classification-pytorch, train.py): six Conv1d layers, two fully
connected layers with dropout 0.5, Adam, and a DataLoader with shuffle=True and one worker.
Unseeded: the weights' initialisation, the dropout masks and the shuffled batch order all draw
on torch's global RNG, seeded from fresh entropy.

Data: instead of the AG's News CSV files (data/ag_news_csv/, not copied), adapt writes two
tiny CSV files of the same format ("class","title","description", classes 1-4) made of
topic words drawn with a fixed seed: 96 training and 32 validation rows, i.e. three batches
of 32 and one evaluation batch.  Size: one epoch instead of 200 (``--epochs 1``), and no per-epoch
checkpoint (``--save_interval 2``: each checkpoint is 136 MB; the best model is still saved
after the evaluation)."""

import csv
import random

REPO = "srviest/char-cnn-text-classification-pytorch"
COMMIT = "f269894ad40ef4d716b76b24db20379f102cae37"
FILES = {
    "train.py": "df572b7957fc0d5d75e184f603ae99c6fe230416",
    "data_loader.py": "cef942e7eca1dcc44cb71fd0301284c26b14b06c",
    "model.py": "3f93fc38f5d1eb7e3cd83cecd2c20836c6a0f9b7",
    "metric.py": "1086613049e0744ab9f5029ef6d14e3896c3ed2b",
    "alphabet.json": "787d35325fa1d0926929b7a495bebced176a48d7",
}
REQUIRES = ("torch", "termcolor")
WORKDIR = "."
COMMAND = ("train.py", "--epochs", "1", "--save_interval", "2")
# train.py prints "Epoch[1] Batch[2] - loss: 1.387146  lr: ..." per batch and
# "Evaluation - loss: 1.386418 ..." after the epoch: the default metric.
VERIFY_ARGS = ()

TOPICS = {
    1: "world government election minister war peace treaty nation",
    2: "sports team game match score player season coach",
    3: "business market stock company profit shares economy bank",
    4: "science technology computer software space research internet",
}


def adapt(root):
    # Data source and size only: two tiny AG's News-format CSV files at the script's default paths.
    rng = random.Random(0)
    folder = root / "data/ag_news_csv"
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train.csv", 96), ("test.csv", 32)):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, quoting=csv.QUOTE_ALL)
            for i in range(rows):
                label = i % 4 + 1
                words = TOPICS[label].split()
                title = " ".join(rng.choice(words) for _ in range(6)).title()
                description = " ".join(rng.choice(words) for _ in range(20))
                writer.writerow([label, title, description])
