"""spro/char-rnn.pytorch: a character-level GRU language model (train.py, with its model.py,
helpers.py and generate.py), trained on a generated text file (a fixed 3 KB text, repeated).
Unseeded: the weights are initialised from the global torch RNG, every training batch is a set of
chunks at offsets drawn with Python's ``random.randint`` (``random`` comes in through
``from helpers import *``), and the sample text printed with each report is drawn with
``torch.multinomial``.  One edit beyond the data and size: ``loss.data[0]`` (indexing a 0-dim
tensor, an error since torch 0.5) becomes ``loss.item()``."""

from real_runs import replace

REPO = "spro/char-rnn.pytorch"
COMMIT = "282bcb6b15ab3929d6a588b455cfc0f19f32add4"
FILES = {
    "train.py": "4d47bba9ab84696612d0d6b1ebb7699d03a5d717",
    "model.py": "b619634a476446f0093219f81ebc8d6418666bb6",
    "helpers.py": "abbd56a17200b0b2d633dca920ac2652bc814282",
    "generate.py": "0fdf41450bfd93015cbf49bcc06fb961a6812b32",
}
REQUIRES = ("torch", "tqdm", "unidecode")
WORKDIR = "."
# 30 steps of 16 chunks of 20 characters, a smaller GRU (2 layers as by default); a report every 5 steps.
COMMAND = ("train.py", "corpus.txt", "--n_epochs", "30", "--print_every", "5", "--hidden_size", "32",
           "--chunk_len", "20", "--batch_size", "16")
# Each report prints "[0m 2s (5 16%) 3.7120]": the last number is that step's loss.
VERIFY_ARGS = ("--metric", r"%\) (?P<value>[-0-9.e]+)\]")


def corpus() -> str:
    # Fixed text (about 3 KB), built without randomness: every run and every machine gets the same file.
    animals = ("fox", "dog", "cat", "owl", "hen", "elk")
    verbs = ("sees", "chases", "greets", "follows", "hears")
    places = ("by the river", "in the barn", "under the old oak", "on the hill")
    lines = []
    for i, a in enumerate(animals):
        for j, v in enumerate(verbs):
            b = animals[(i + j + 1) % len(animals)]
            place = places[(i * len(verbs) + j) % len(places)]
            lines.append("The %s %s the %s %s at %d o'clock." % (a, v, b, place, (i * 5 + j) % 12 + 1))
            lines.append("Why does the %s do that? Nobody knows, said the %s." % (a, b))
    return "\n".join(lines) + "\n"


def adapt(root):
    # Data: a generated text file instead of the user's corpus (the script reads any text file).
    # Repeated to about 1.25 MB: train.py draws start offsets with randint(0, file_len - chunk_len)
    # and fails (a chunk one character short) when it draws the last one; on a 3 KB file that is
    # ~15% of runs, on 1.25 MB ~0.04% (480 draws per run).
    (root / "corpus.txt").write_text(corpus() * 400, encoding="utf-8")
    # torch >= 0.5: a 0-dim tensor cannot be indexed; .item() is the replacement (unavoidable).
    replace(root / "train.py", "return loss.data[0] / args.chunk_len", "return loss.item() / args.chunk_len")
