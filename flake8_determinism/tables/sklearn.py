"""scikit-learn callables whose result depends on ``random_state`` (DET108).  Catalog §7.

``random_state=None`` means the global NumPy RandomState, so results change with
anything else that draws from it.  Each entry maps a qualified name to the
condition under which ``random_state`` matters: ``ALWAYS``, or ``When(param,
values, default)`` -- relevant when ``param`` is a literal in ``values``, is not
a literal (could be), or is absent and ``default`` is in ``values``.
Callables whose ``random_state`` defaults to a fixed integer are not listed
(``Perceptron``, ``FactorAnalysis``, ``permutation_test_score``,
``fetch_20newsgroups``, ``fetch_olivetti_faces``, ``load_files``, ``estimate_bandwidth``).
"""

from typing import NamedTuple, Tuple


class When(NamedTuple):
    param: str
    values: Tuple[object, ...]
    default: object


ALWAYS = None
NOT_NONE = "<not None>"  # sentinel value: any literal other than None
POSITIVE = "<positive>"  # sentinel value: a number greater than 0

_SOLVER_SAG = When("solver", ("sag", "saga"), "auto")
_SHUFFLE_ON = When("shuffle", (True,), False)

SKLEARN_RANDOM_STATE = {}


def _add(module, names, condition=ALWAYS):
    for name in names.split():
        SKLEARN_RANDOM_STATE["sklearn.%s.%s" % (module, name)] = condition


_add("cluster", "AffinityPropagation BisectingKMeans KMeans MiniBatchKMeans SpectralBiclustering "
     "SpectralClustering SpectralCoclustering affinity_propagation k_means kmeans_plusplus spectral_clustering")
_add("covariance", "EllipticEnvelope MinCovDet fast_mcd")
_add("decomposition", "DictionaryLearning FastICA LatentDirichletAllocation MiniBatchDictionaryLearning "
     "MiniBatchNMF MiniBatchSparsePCA SparsePCA TruncatedSVD dict_learning dict_learning_online fastica "
     "randomized_svd")
_add("decomposition", "KernelPCA", When("eigen_solver", ("arpack", "randomized"), "auto"))
_add("decomposition", "NMF non_negative_factorization", When("init", ("random", "nndsvdar"), None))
_add("decomposition", "PCA", When("svd_solver", ("arpack", "randomized"), "auto"))
_add("dummy", "DummyClassifier", When("strategy", ("stratified", "uniform"), "prior"))
_add("ensemble", "AdaBoostClassifier AdaBoostRegressor BaggingClassifier BaggingRegressor "
     "ExtraTreesClassifier ExtraTreesRegressor GradientBoostingClassifier GradientBoostingRegressor "
     "HistGradientBoostingClassifier HistGradientBoostingRegressor IsolationForest "
     "RandomForestClassifier RandomForestRegressor RandomTreesEmbedding")
_add("feature_extraction.image", "PatchExtractor", When("max_patches", (NOT_NONE,), None))
_add("gaussian_process", "GaussianProcessClassifier GaussianProcessRegressor",
     When("n_restarts_optimizer", (POSITIVE,), 0))
_add("kernel_approximation", "Nystroem PolynomialCountSketch RBFSampler SkewedChi2Sampler")
_add("linear_model", "ElasticNet ElasticNetCV Lasso LassoCV MultiTaskElasticNet MultiTaskElasticNetCV "
     "MultiTaskLasso MultiTaskLassoCV", When("selection", ("random",), "cyclic"))
_add("linear_model", "Lars LassoLars", When("jitter", (NOT_NONE,), None))
_add("linear_model", "LogisticRegression LogisticRegressionCV",
     When("solver", ("sag", "saga", "liblinear"), "lbfgs"))
_add("linear_model", "Ridge RidgeClassifier ridge_regression", _SOLVER_SAG)
_add("linear_model", "PassiveAggressiveClassifier PassiveAggressiveRegressor RANSACRegressor "
     "SGDClassifier SGDOneClassSVM SGDRegressor TheilSenRegressor")
_add("manifold", "MDS SpectralEmbedding TSNE smacof spectral_embedding")
_add("manifold", "LocallyLinearEmbedding locally_linear_embedding", When("eigen_solver", ("arpack",), "auto"))
_add("mixture", "BayesianGaussianMixture GaussianMixture")
_add("model_selection", "RandomizedSearchCV HalvingRandomSearchCV ParameterSampler ShuffleSplit "
     "StratifiedShuffleSplit GroupShuffleSplit RepeatedKFold RepeatedStratifiedKFold")
_add("model_selection", "KFold StratifiedKFold GroupKFold StratifiedGroupKFold learning_curve", _SHUFFLE_ON)
_add("model_selection", "train_test_split", When("shuffle", (True,), True))
_add("multiclass", "OutputCodeClassifier")
_add("multioutput", "ClassifierChain RegressorChain", When("order", ("random",), None))
_add("neighbors", "NeighborhoodComponentsAnalysis", When("init", ("random",), "auto"))
_add("neural_network", "BernoulliRBM MLPClassifier MLPRegressor")
_add("preprocessing", "KBinsDiscretizer QuantileTransformer TargetEncoder quantile_transform")
_add("random_projection", "GaussianRandomProjection SparseRandomProjection")
_add("svm", "SVC NuSVC", When("probability", (True,), False))
_add("svm", "LinearSVC LinearSVR", When("dual", (True,), "auto"))
_add("tree", "DecisionTreeClassifier DecisionTreeRegressor ExtraTreeClassifier ExtraTreeRegressor")
_add("utils", "resample shuffle")
_add("utils.extmath", "randomized_svd randomized_range_finder")
_add("datasets", "make_biclusters make_blobs make_checkerboard make_circles make_classification "
     "make_friedman1 make_friedman2 make_friedman3 make_gaussian_quantiles make_hastie_10_2 "
     "make_low_rank_matrix make_moons make_multilabel_classification make_regression make_s_curve "
     "make_sparse_coded_signal make_sparse_spd_matrix make_sparse_uncorrelated make_spd_matrix make_swiss_roll")
_add("datasets", "fetch_covtype fetch_kddcup99 fetch_rcv1", _SHUFFLE_ON)
_add("inspection", "permutation_importance")
_add("metrics", "silhouette_score", When("sample_size", (NOT_NONE,), None))
_add("feature_selection", "mutual_info_classif mutual_info_regression")

# Keywords under which an estimator is a template an ensemble clones and seeds from its own
# ``random_state`` (sklearn/ensemble/_base.py ``_make_estimator`` -> ``_set_random_states``):
# Bagging*, AdaBoost*, imbalanced-learn's ensembles, ``_validate_estimator(default=...)``.
# Not StackingClassifier's ``final_estimator``: it is fitted as given.
TEMPLATE_KEYWORDS = frozenset({"estimator", "base_estimator", "default"})
