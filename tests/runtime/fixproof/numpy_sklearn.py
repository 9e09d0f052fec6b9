"""NumPy data, a scikit-learn split and a random forest, nothing seeded.

The data (np.random.rand), the train/test split and the forest's bootstraps
and feature draws all change every run. Prints the test accuracy and the
predicted probabilities at full precision.
"""

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split


def main():
    X = np.random.rand(200, 6)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.7).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25)
    clf = RandomForestClassifier(n_estimators=20, max_depth=4)
    clf.fit(X_train, y_train)
    print("score", repr(clf.score(X_test, y_test)))
    print("proba", [repr(float(p)) for p in clf.predict_proba(X_test)[:10, 1]])


if __name__ == "__main__":
    main()
