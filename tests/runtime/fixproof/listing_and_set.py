"""Train/validation split from a directory listing, labels from a set of strings.

The data directory (argv[1], else $FIXPROOF_DATA_DIR) holds one text file per
sample, named "<class>_<n>.txt". The last two files of os.listdir() (file-system
order) become the validation set; label indices come from list(set(...)),
whose order follows string hashing (different in every process unless
PYTHONHASHSEED is set). Prints the class->index map, the training labels and
the validation text.
"""

import os
import sys

DATA_DIR = sys.argv[1] if len(sys.argv) > 1 else os.environ["FIXPROOF_DATA_DIR"]


def class_of(filename):
    return filename.split("_")[0]


def main():
    files = os.listdir(DATA_DIR)
    train_files, val_files = files[:-2], files[-2:]
    classes = list(set(class_of(f) for f in files))
    class_to_idx = {c: i for i, c in enumerate(classes)}
    train_labels = [class_to_idx[class_of(f)] for f in train_files]
    val_text = ""
    for f in val_files:
        with open(os.path.join(DATA_DIR, f)) as fh:
            val_text += fh.read().strip()
    print("classes", class_to_idx)
    print("train_labels", train_labels)
    print("val_text", val_text)


if __name__ == "__main__":
    main()
