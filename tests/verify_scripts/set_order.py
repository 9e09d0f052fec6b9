"""Class names collected into a set, then numbered in the set's order: the label of each
class depends on string hashing.  Prints one loss-like line per class."""


def main():
    names = ["cat", "dog", "bird", "fish", "frog", "lion", "wolf", "bear"]
    classes = list(set(names))
    label_of = {name: index for index, name in enumerate(classes)}
    for name in names:
        print("class %s label %d loss %.1f" % (name, label_of[name], len(name) * (label_of[name] + 1) / 10.0))


if __name__ == "__main__":
    main()
