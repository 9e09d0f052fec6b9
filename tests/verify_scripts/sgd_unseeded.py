"""Linear regression by SGD in pure Python: random initial weights, a random minibatch
each step, nothing seeded.  Prints "step N loss X" like a training script."""

import random


def main():
    points = [(x / 10.0, 3.0 * x / 10.0 + 1.0) for x in range(50)]
    w, b = random.gauss(0.0, 1.0), random.gauss(0.0, 1.0)
    for step in range(6):
        batch = random.sample(points, 8)
        loss = sum((w * x + b - y) ** 2 for x, y in batch) / len(batch)
        grad_w = sum(2 * (w * x + b - y) * x for x, y in batch) / len(batch)
        grad_b = sum(2 * (w * x + b - y) for x, y in batch) / len(batch)
        w, b = w - 0.05 * grad_w, b - 0.05 * grad_b
        print("step %d loss %.6f" % (step, loss))


if __name__ == "__main__":
    main()
