"""Class names collected into a set, then numbered in the set's order: the label of each
class depends on string hashing.  Prints one loss-like line per class."""


def main():
    names = ["cat", "dog", "bird", "fish", "frog", "lion", "wolf", "bear"]
    classes = list(set(names))
    for index, name in enumerate(classes):
        print("class %s label %d loss %.1f" % (name, index, len(name) * (index + 1) / 10.0))


if __name__ == "__main__":
    main()
