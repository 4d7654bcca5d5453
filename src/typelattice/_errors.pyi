from typing import Any

import numpy as np

class TypePromotionError(np.exceptions.DTypePromotionError, ValueError):
    operands: tuple[Any, ...]
    rules: Any
    hint: str | None
    message: str | None
    def __init__(self, operands: Any, rules: Any, hint: str | None = ...,
                 message: str | None = ...) -> None: ...
