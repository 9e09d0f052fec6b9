"""Uninitialized memory (DET307): the torch constructors that allocate without writing, and what
initializes, only reads metadata of, or passes on a parameter or buffer.

``torch.empty`` "returns a tensor filled with uninitialized data"; under
``torch.use_deterministic_algorithms(True)`` with ``torch.utils.deterministic.fill_uninitialized_memory``
(on by default, torch >= 2.1) the same constructors fill floating-point memory with NaN
(torch 2.13 torch/__init__.py, torch/utils/deterministic.py).
"""

# Constructors whose result holds whatever the allocator returned (qualified names), and the
# Tensor method that does the same on any receiver.
EMPTY_CONSTRUCTORS = frozenset({"torch.empty", "torch.empty_like"})
EMPTY_METHODS = frozenset({"new_empty"})

# Words one of which every parameter or buffer made here spells (the pre-check's second word).
HOLDER_WORDS = frozenset({"Parameter", "register_buffer", "register_parameter", "Buffer"})

# What turns a tensor into a module's parameter or buffer.
PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
BUFFER_CLASSES = frozenset({"torch.nn.Buffer", "torch.nn.parameter.Buffer"})
# Containers a class fills with parameters (``self.rel = nn.ParameterDict()``): making one writes none.
PARAMETER_CONTAINERS = frozenset({
    "torch.nn.ParameterDict", "torch.nn.ParameterList", "torch.nn.parameter.ParameterDict",
    "torch.nn.modules.container.ParameterDict", "torch.nn.modules.container.ParameterList",
})

# Every function of ``torch.nn.init`` writes the tensor it is given (``kaiming_uniform_``, ``zeros_``,
# ``trunc_normal_``, ...).
INITIALIZER_PREFIX = "torch.nn.init."

# In-place Tensor methods (``uniform_``, ``normal_``, ``zero_``, ``fill_``, ``copy_``, ``data.xxx_``)
# write the tensor; these in-place ones change only its flags or its storage's sharing.
NOT_WRITING_INPLACE = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})

# Methods that give the same uninitialized values again (``torch.empty(n).to(device)``).
PASSING_ON = frozenset({
    "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "contiguous", "requires_grad_",
    "share_memory_", "pin_memory",
})

# Views of the same memory: ``nn.init.xavier_normal_(self.att.view(2, h, c))`` writes ``self.att``.
VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "transpose", "t", "permute", "unsqueeze", "squeeze",
    "narrow", "select", "flatten", "unflatten", "chunk", "split", "tensor_split", "unbind", "detach",
    "expand", "expand_as", "as_strided", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
    "unfold", "__getitem__",
})
VIEW_ATTRIBUTES = frozenset({"data", "T", "mT", "H", "mH", "real", "imag"})

# Reading these never reads the values.
METADATA_ATTRIBUTES = frozenset({
    "device", "dtype", "shape", "ndim", "requires_grad", "is_cuda", "layout", "is_leaf", "grad",
    "grad_fn", "names", "is_sparse", "is_quantized", "is_meta", "itemsize", "nbytes",
})
METADATA_METHODS = frozenset({
    "size", "dim", "numel", "nelement", "ndimension", "element_size", "data_ptr", "get_device", "stride",
    "is_contiguous", "storage_offset", "is_floating_point", "is_complex", "requires_grad_", "register_hook",
})

# ``self.table.values()``: the tensors of a ParameterDict/ParameterList handed on as a whole.
CONTAINER_METHODS = frozenset({"values", "items", "parameters", "named_parameters", "buffers", "children"})

# A loop over these in a body that initializes initializes every parameter or buffer.
ALL_TENSORS_METHODS = frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "state_dict", "modules",
    "named_modules", "children", "named_children",
})

# Bases whose ``__init__`` initializes nothing a subclass adds: the only classes judged.  Any
# other library base may initialize (``nn.Linear.__init__`` calls ``self.reset_parameters()``,
# which a subclass overrides; Hugging Face ``PreTrainedModel`` initializes through ``post_init``).
PLAIN_MODULE_BASES = frozenset({
    "torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.Sequential", "torch.nn.ModuleList",
    "torch.nn.ModuleDict", "lightning.LightningModule", "lightning.pytorch.LightningModule",
    "lightning.pytorch.core.LightningModule", "lightning.pytorch.core.module.LightningModule",
})

# Bases that add no state: ``class Router(ABC, MegatronModule)`` is judged by its other bases.
STATELESS_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol"})

# ``nn.Module`` methods a class calls on itself that initialize nothing.
MODULE_METHODS_NOT_INITIALIZING = frozenset({
    "register_buffer", "register_parameter", "add_module", "register_module", "to", "cuda", "cpu",
    "float", "double", "half", "bfloat16", "train", "eval", "requires_grad_", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook", "register_backward_hook", "parameters",
    "named_parameters", "modules", "named_modules", "children", "named_children", "buffers",
    "named_buffers", "get_submodule", "get_parameter", "get_buffer", "type", "zero_grad", "extra_repr",
})

# A class that loads its own weights.
LOADING_CALLS = frozenset({"load_state_dict", "from_pretrained", "load_checkpoint"})

# Hugging Face models: ``PreTrainedModel`` subclasses initialize every module of the model through
# ``post_init()`` (``_init_weights``) or load a checkpoint; the modules of such a file are built by it.
PRETRAINED_SUFFIX = "PreTrainedModel"
PRETRAINED_INIT = "post_init"
