"""Data-order facts: DataLoader, samplers, dataset RNGs, listings, sets.  Catalog §1.1(e), §3, §4, §6, §10."""

DATALOADER = "torch.utils.data.DataLoader"
TORCH_ROOT = "torch."
DATASET_BASES = frozenset({"torch.utils.data.Dataset", "torch.utils.data.IterableDataset"})

# DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
#            collate_fn, pin_memory, drop_last, timeout, worker_init_fn,
#            multiprocessing_context, generator, ...): (keyword, position).
DATASET = ("dataset", 0)
SHUFFLE = ("shuffle", 2)
SAMPLER = ("sampler", 3)
BATCH_SAMPLER = ("batch_sampler", 4)
NUM_WORKERS = ("num_workers", 5)
WORKER_INIT_FN = ("worker_init_fn", 10)
GENERATOR = ("generator", 12)

# Lightning's seed_everything(seed, workers=True) injects a worker_init_fn (facts §8).
SEEDS_WORKERS = {"lightning.seed_everything": ("workers", 1)}

# Samplers and splits drawing from the global torch RNG unless given a generator:
# name -> position of ``generator``.
RANDOM_SAMPLERS = {
    "torch.utils.data.RandomSampler": 3,
    "torch.utils.data.SubsetRandomSampler": 1,
    "torch.utils.data.WeightedRandomSampler": 3,
    "torch.utils.data.random_split": 2,
}

# RNG objects that a Dataset may hold (seeded or not, each worker gets a copy).
RNG_OBJECTS = frozenset(
    {
        "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
        "random.Random", "torch.Generator",
    }
)
DATASET_DRAW_METHODS = frozenset({"__getitem__", "__getitems__", "__iter__"})
# Datasets that wrap another one (name -> where the inner dataset is passed).
DATASET_WRAPPERS = {"torch.utils.data.random_split": ("dataset", 0), "torch.utils.data.Subset": ("dataset", 0)}
# Libraries whose RNG a DataLoader worker copies unchanged (albumentations 2.x: one
# RNG per Compose, facts §9; imgaug's own global RNG; CuPy's).
OTHER_RNG_ROOTS = frozenset({"albumentations", "imgaug", "cupy"})
# A dataset calling something named like this (``self.transform(img)``) may draw.
TRANSFORM_WORDS = ("transform", "aug")
# torchvision datasets draw only through their transforms.
TORCHVISION_DATASETS = "torchvision.datasets."
TORCHVISION_TRANSFORMS = "torchvision.transforms."
TORCHVISION_TRANSFORM_KEYWORDS = frozenset({"transform", "target_transform", "transforms", "img_transform",
                                            "seg_transform", "label_transform"})
# MONAI's datasets also draw only through their transforms; its random transforms (``Rand*``)
# hold their own ``RandomState`` (monai/transforms/transform.py, ``Randomizable``).
MONAI_DATASETS = "monai.data."
MONAI_TRANSFORMS = "monai.transforms."
MONAI_RANDOM_PREFIX = "Rand"
# PyG's datasets apply ``transform`` in ``__getitem__`` (in the workers); ``pre_transform`` and
# ``pre_filter`` run once, when the dataset is processed (torch_geometric/data/dataset.py).  Its
# transforms draw from torch when named Random* or sampling points (FixedPoints, SamplePoints).
PYG_DATASETS = "torch_geometric.datasets."
PYG_TRANSFORMS = "torch_geometric.transforms."
PYG_DRAWING_TRANSFORMS = frozenset({"FixedPoints", "SamplePoints"})
TRANSFORMED_DATASETS = (TORCHVISION_DATASETS, MONAI_DATASETS, PYG_DATASETS)
TRANSFORM_LIBRARIES = (TORCHVISION_TRANSFORMS, MONAI_TRANSFORMS, PYG_TRANSFORMS)
COMPOSING_TRANSFORMS = frozenset({"Compose"})
# torch >= 1.9 reseeds NumPy's global RNG in every worker (PRs #56488/#56797).
TORCH_RESEEDS_NUMPY_IN_WORKERS = (1, 9)

# Directory listings in arbitrary order (facts §10).
LISTINGS = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob",
                      "tensorflow.io.gfile.glob", "tensorflow.io.gfile.listdir"})
PATH_LISTING_METHODS = frozenset({"glob", "rglob", "iterdir"})
# Listings that return a list (the rest return iterators: ``sorted`` is safe where they are only iterated).
LIST_LISTINGS = frozenset({"os.listdir", "glob.glob", "tensorflow.io.gfile.glob", "tensorflow.io.gfile.listdir"})
# Builtins that only iterate their argument: a sorted list serves them as well as an iterator.
ITERATING_BUILTINS = frozenset({"list", "tuple", "sorted", "set", "frozenset", "enumerate", "zip", "map", "filter",
                                "len", "dict", "any", "all", "min", "max", "sum"})
# Build scripts list sources and package data: build order, not a result.
BUILD_SCRIPT_NAMES = frozenset({"setup.py"})
BUILD_ROOTS = frozenset({"setuptools", "distutils"})
# Calls that build: sources handed to them are compiled in listing order, with the same result.
BUILD_PREFIXES = ("torch.utils.cpp_extension.", "setuptools.", "distutils.", "pybind11.setup_helpers.")

# Calls whose arguments are a log line, not a result (DET206/DET207: not an order use).
LOG_FUNCTIONS = frozenset({"warnings.warn", "logging.debug", "logging.info", "logging.warning", "logging.error",
                           "logging.exception", "logging.critical", "logging.log", "tqdm.write"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
LOGGER_NAMES = ("log", "logger")  # receivers of LOG_METHODS: ``logger``, ``self.log``, ``LOGGER``
# Set methods: feeding a set does not use an order.
SET_METHODS = frozenset({"add", "update", "union", "intersection", "difference", "symmetric_difference",
                         "issubset", "issuperset", "isdisjoint", "intersection_update", "difference_update",
                         "discard"})
# File operations a loop may do to each entry on its own (their order changes nothing).
FILE_OPERATIONS = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.makedirs", "os.mkdir", "os.symlink",
                             "os.chmod", "os.rename", "os.replace", "shutil.move", "shutil.copy", "shutil.copy2",
                             "shutil.copyfile", "shutil.copytree", "shutil.rmtree", "unlink", "rmdir", "mkdir",
                             "chmod", "touch", "symlink_to"})

# Library calls that sort the file list they are given: MindSpore's TFRecordDataset and
# CSVDataset do ``self.dataset_files = self._find_files(dataset_files); self.dataset_files.sort()``
# (mindspore/dataset/engine/datasets_standard_format.py, datasets_text.py).
SORTING_CONSUMERS = frozenset({
    "mindspore.dataset.TFRecordDataset", "mindspore.dataset.CSVDataset",
    # natsort's sorters order the entries by a natural key (natsort/natsort.py).
    "natsort.natsorted", "natsort.humansorted", "natsort.realsorted", "natsort.os_sorted",
    "natsort.index_natsorted",
    # NumPy's sorts return the entries in sorted order (``np.sort(os.listdir(d))``).
    "numpy.sort", "numpy.unique",
})
# The same sorts as spelled where they are called, for the checks that read a call without
# resolving it (``files = np.sort(files)``, ``self.files = sorted(self.files)``).
SORTER_SPELLINGS = frozenset({"sorted", "np.sort", "numpy.sort", "natsorted", "natsort.natsorted", "os_sorted"})

# Writers that, given a path made from the entry (or called on a file opened at one), write one
# output per entry: a loop doing only that is order-free (DET206/207).
PER_ENTRY_WRITERS = frozenset({
    "save", "savez", "savez_compressed", "savetxt", "save_image", "imwrite", "imsave", "to_csv", "to_json",
    "to_parquet", "savefig", "tofile", "copyfile", "write_text", "write_bytes",
})
CONTENT_WRITERS = frozenset({"write", "writelines", "dump"})  # their path is the file they write to
PATH_BUILDERS = frozenset({"join", "Path", "with_suffix", "with_name", "format", "replace"})
# Calls that open or spell the path they are given: ``open(p)``, ``str(p)``, ``Path(p)``.
PATH_WRAPPERS = frozenset({"open", "str", "Path", "pathlib.Path", "os.fspath"})
# Calls (last part of the name) that open the file at the path they are given first:
# ``codecs.open``, ``io.FileIO``, ``h5py.File``, ``zipfile.ZipFile``, a summary writer.
OPENERS = frozenset({"open", "FileIO", "File", "ZipFile", "TarFile", "SummaryWriter", "Writer"})

# Methods that carry state from one entry to the next in order (a loop calling one on each
# entry is not per-entry work): training on it, updating an accumulator or a hash, writing
# into a shared stream, loading into one object (the last one wins).
ORDER_KEEPING_METHODS = frozenset({
    "update", "write", "writelines", "fit", "partial_fit", "train", "step", "backward", "send", "put",
    "put_nowait", "push", "feed", "add_item", "add_batch", "run", "observe",
    # Importing each listed module runs its registrations (``@register_model``) in listing order:
    # registries, argument parsers and name clashes then depend on it (fairseq's plugin imports).
    "import_module", "__import__", "exec_module", "load_module", "load_source", "run_path",
})
ORDER_KEEPING_PREFIXES = ("train", "load", "fit", "update", "add_")

# ``Pool.map(fn, entries)`` / ``executor.map``: each entry on its own; order-free when the results
# are thrown away, and always for the unordered ones (results in completion order).
POOL_MAPS = frozenset({"map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async"})
UNORDERED_POOL_MAPS = frozenset({"imap_unordered"})

# Builtins whose result does not depend on the order of their argument.
ORDER_FREE = frozenset({"sorted", "len", "set", "frozenset", "sum", "min", "max", "any", "all", "bool", "dict"})
# Builtins that pass their argument's order through.
ORDER_PASSING = frozenset({"list", "tuple", "iter", "filter", "map", "reversed"})
# Builtins/methods that take an order from a set.
ORDER_TAKING = frozenset({"list", "tuple", "enumerate", "zip", "next", "iter"})
# Library calls that keep the order of the entries they are given in their result (rows of an
# array, a table), or draw over the entries by position: a listing passed to one reaches a result.
ORDER_KEEPING_CALLS = frozenset({
    "numpy.concatenate", "numpy.stack", "numpy.vstack", "numpy.hstack", "numpy.array", "numpy.asarray",
    "numpy.save", "numpy.savez", "numpy.savetxt",
    "torch.cat", "torch.stack", "torch.tensor", "torch.save", "pandas.concat", "pandas.DataFrame",
    "random.shuffle", "random.sample", "random.choice", "random.choices",
    "numpy.random.shuffle", "numpy.random.choice", "numpy.random.permutation",
    "json.dump", "pickle.dump",
    # Datasets built from a list of files read them in the order given (MindSpore's MindDataset;
    # tf.data's TFRecordDataset and from_tensor_slices; torch's TensorDataset).
    "mindspore.dataset.MindDataset", "tensorflow.data.TFRecordDataset",
    "tensorflow.data.Dataset.from_tensor_slices", "torch.utils.data.TensorDataset",
})

# Shuffles outside torch (DET203).  tf.data methods: name -> seed position.
TF_DATASET_SHUFFLES = {"shuffle": 1}
TF_LIST_FILES = "tensorflow.data.Dataset.list_files"  # (file_pattern, shuffle, seed)
HF_DATASETS_ROOT = "datasets."
# Hugging Face ``Dataset`` methods that seed themselves from NumPy's global RNG when given neither
# ``seed`` nor ``generator`` (src/datasets/arrow_dataset.py): method -> the (keyword, position) of
# ``seed``, of ``generator`` and of the ``shuffle`` flag that turns the draw off (None: none).
HF_SEEDED_FROM_NUMPY = {
    "shuffle": (("seed", 0), ("generator", 1), None),
    "train_test_split": (("seed", 4), ("generator", 5), ("shuffle", 2)),
}
# MindSpore mappable datasets shuffle by default (shuffle=None -> GLOBAL).
MINDSPORE_SHUFFLING_DATASETS = frozenset(
    "mindspore.dataset." + n
    for n in (
        "ImageFolderDataset Cifar10Dataset Cifar100Dataset MnistDataset FashionMnistDataset "
        "GeneratorDataset CocoDataset VOCDataset CelebADataset ManifestDataset NumpySlicesDataset "
        "MindDataset TFRecordDataset TextFileDataset CSVDataset"
    ).split()
)

HASH_SEED_VARIABLE = "PYTHONHASHSEED"

# DET209: ``hash()`` of a str/bytes deciding a result.  Python salts the hashes of ``str`` and
# ``bytes`` (and of the tuples, frozensets and paths holding them) per process
# (https://docs.python.org/3/reference/datamodel.html#object.__hash__); numbers hash to themselves.
# Builtins whose result is a str or bytes.
TEXT_BUILTINS = frozenset({"str", "repr", "ascii", "format", "chr", "bytes", "hex", "oct", "bin"})
# Methods whose result is a str or bytes (on a str, bytes, path or digest).
TEXT_METHODS = frozenset({
    "join", "format", "lower", "upper", "casefold", "title", "capitalize", "strip", "lstrip", "rstrip",
    "replace", "encode", "decode", "hexdigest", "digest", "tobytes", "zfill", "removeprefix", "removesuffix",
    "as_posix", "read_text", "read_bytes", "getvalue", "format_map", "expandtabs", "ljust", "rjust", "center",
})
# Library calls returning a str, bytes or path (a path hashes like its string).
TEXT_CALLS = frozenset({
    "json.dumps", "pickle.dumps", "yaml.dump", "yaml.safe_dump", "os.path.join", "os.path.basename",
    "os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.expanduser",
    "os.path.relpath", "os.getcwd", "os.fspath", "socket.gethostname", "platform.node", "inspect.getsource",
    "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "omegaconf.OmegaConf.to_yaml",
})
# Builtins whose result is a number (hashed to itself: the same in every process).
NUMBER_BUILTINS = frozenset({"int", "float", "len", "ord", "round", "abs", "id", "hash", "bool", "complex", "sum",
                             "divmod", "pow"})
# Methods whose result is a number.
NUMBER_METHODS = frozenset({"item", "count", "index", "find", "rfind", "numel", "nelement", "dim", "size",
                            "bit_length", "toordinal", "timestamp"})
# Annotations of a str/bytes/path parameter, and of a number.
TEXT_ANNOTATIONS = frozenset({"str", "bytes", "Path", "PurePath", "PathLike", "AnyStr", "Text"})
NUMBER_ANNOTATIONS = frozenset({"int", "float", "bool", "complex"})
# Words of a variable's or attribute's name that say what it holds (split at ``_`` and case
# changes): a number, or an object hashed by identity or its own ``__hash__`` -- neither is
# salted like a str.  Other names are taken as "may well be a str" only where the hash's use
# is one of the shapes DET209 reports (a split, a file name, a sort key, a seed).
NUMBER_WORDS = frozenset({
    "i", "j", "n", "idx", "index", "indices", "num", "number", "count", "step", "steps", "epoch", "seed", "size",
    "length", "len", "dim", "rank", "iteration", "iter", "int", "integer", "shape", "height", "width", "depth",
    "timestamp", "port", "pid", "total",
})
OBJECT_WORDS = frozenset({
    "self", "cls", "model", "module", "net", "network", "layer", "fn", "func", "function", "obj", "object",
    "instance", "tensor", "array", "arr", "graph", "node", "op", "callable", "klass", "type", "dtype", "device",
    "optimizer", "dataset", "loader", "env", "proxy", "ref", "frame",
})
# Containers indexed by a hash in memory only (``self._cache[hash(token) % size]``: a bounded
# cache whose slot is checked against the key): words of their names.
MEMORY_WORDS = frozenset({"cache", "memo", "memory", "lock", "mutex", "seen", "lru", "slot", "table", "hashtable"})
# A class implementing a mapping or set itself (it stores by key, or is named so): its
# ``hash(key) % size`` picks a slot of the object's own storage, never kept beyond the process.
# (``__getitem__`` alone says nothing: every Dataset has one.)
MAPPING_METHODS = frozenset({"__setitem__", "__delitem__", "__contains__"})
# (Not "map", "set" or "cache": a MindMap, a DataSet, a DiskCache writing files.)
MAPPING_CLASS_WORDS = frozenset({"table", "hashtable", "hashmap", "dict", "hashset", "bloom", "lru"})
# Calls a hash's value can reach that pick an order by it (``key=``).
SORTING_BY_KEY = frozenset({"sorted", "min", "max", "sort", "nsmallest", "nlargest", "groupby"})
# Keywords of any call that take a seed.
SEED_KEYWORDS = frozenset({"seed", "random_state", "random_seed", "rng_seed", "manual_seed"})
# Calls taking a path: a name made from a hash and handed to one names a file or folder.
PATH_CALLS = frozenset({
    "open", "os.path.join", "os.path.exists", "os.path.isfile", "os.path.isdir", "os.makedirs", "os.mkdir",
    "os.remove", "os.rename", "os.listdir", "pathlib.Path", "pathlib.PurePath", "shutil.copy", "shutil.copyfile",
    "shutil.move", "shutil.rmtree", "torch.save", "torch.load", "numpy.save", "numpy.load", "numpy.savez",
    "numpy.savez_compressed", "pickle.load", "pickle.dump", "joblib.dump", "joblib.load", "h5py.File",
    "lmdb.open", "shelve.open", "tarfile.open", "zipfile.ZipFile", "pandas.read_csv", "pandas.read_pickle",
    "tensorflow.io.gfile.exists", "tensorflow.io.gfile.GFile", "tensorflow.io.gfile.makedirs",
})
# Methods taking or building a path (``cache_dir.joinpath(name)``, ``root / name``: see the rule).
PATH_METHODS = frozenset({"joinpath", "with_name", "with_suffix", "with_stem", "exists", "mkdir"})
# A function returning a name made from a hash, and no caller here: these words in its name say
# the name is a path or a cache key (``def cache_file(self): return f"{...}_{hash(k)}"``).
PATH_WORDS = frozenset({"path", "file", "filename", "fname", "dir", "folder", "cache", "key", "name", "ckpt",
                        "checkpoint"})
# Methods whose ``hash()`` belongs to the object protocol or a display (never a result).
PROTOCOL_METHODS = frozenset({"__hash__", "__eq__", "__ne__", "__repr__", "__str__", "__format__"})

# DET210: parallel pipelines told they may give up order (or handing samples to workers by
# scheduling).  torch's ``DataLoader(in_order=False)`` (torch >= 2.6, PR #141833) returns
# batches as workers finish them; it does nothing without workers.
DATALOADER_IN_ORDER = ("in_order", None)
IN_ORDER_SINCE_TORCH = (2, 6)
# tf.data transformations whose ``deterministic=False`` lets elements come out of order when
# ``num_parallel_calls`` is set (tf.data.Dataset docs).
TF_ORDER_METHODS = frozenset({"map", "interleave", "batch", "parallel_map"})
TF_OPTIONS_FLAGS = ("tensorflow.data.Options().deterministic", "tensorflow.data.Options().experimental_deterministic")
# MindSpore: ``num_parallel_workers`` on a dataset or an operation; ``python_multiprocessing``
# on ``map``.  Random vision/audio/text operations: ``Random*``/``Rand*`` and these.
MINDSPORE_WORKERS = "num_parallel_workers"
MINDSPORE_MULTIPROCESSING = "python_multiprocessing"
MINDSPORE_RANDOM_OPERATIONS = frozenset({
    "AutoAugment", "RandAugment", "TrivialAugmentWide", "UniformAugment", "CutMixBatch", "MixUpBatch", "MixUp",
    "CutOut", "RandomChoice", "RandomApply", "RandomOrder", "SoftDvppDecodeRandomCropResizeJpeg",
})
MINDSPORE_RANDOM_PREFIXES = ("Random", "Rand")
# Random operations whose first argument is the probability of acting (1 or 0: not random).
MINDSPORE_PROB_FIRST = frozenset({"RandomHorizontalFlip", "RandomVerticalFlip", "RandomHorizontalFlipWithBBox",
                                  "RandomVerticalFlipWithBBox", "RandomGrayscale", "RandomInvert", "RandomEqualize"})
