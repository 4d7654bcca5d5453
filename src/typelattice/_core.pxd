# Declarations shared with other Cython modules (the ufunc promoters use CompiledRules directly).
from libc.stdint cimport int8_t

cdef class CompiledRules:
    cdef readonly str name
    cdef readonly str description
    cdef readonly int n
    cdef readonly bint is_lattice
    cdef const int8_t *join_table      # n*n, -1: no promotion
    cdef const int8_t *weak_to         # n, concrete type of a weak type or -1
    cdef int py_scalar[4]              # bool, int, float, complex -> type or -1
    cdef readonly tuple types          # canonical names
    cdef readonly tuple dtypes         # np.dtype or None per type
    cdef readonly dict index           # name -> position
    cdef readonly dict aliases         # canonicalization of operand names
    cdef readonly dict python_scalars  # "bool"/"int"/"float"/"complex" -> name
    cdef dict _codes                   # operand key -> position, filled on first use
    cdef void *cache_key[256]          # identity cache of operand keys (dtype, type, str)
    cdef int8_t cache_code[256]
    cdef list _alive                   # keeps cached keys alive, so their addresses stay valid
    cdef object _owner                 # buffers of a rule set compiled at run time
    cdef readonly object definition    # the RuleSet object, when compiled at run time

    cdef int code(self, object x) except -2
    cdef int code_slow(self, object x) except -2
    cdef int _code_cached(self, object key, size_t slot) except -2
    cdef int join2(self, int a, int b) noexcept nogil

cpdef CompiledRules get_rules(object rules=*)
