"""nltk, loaded when it is first used rather than when a scorer is imported. `import nltk` runs the whole
package (its collocations import scipy.stats): seconds, for the two tokenizers the checkers use.
importlib's LazyLoader puts the module in sys.modules now and runs it on the first attribute read, so any
later `import nltk` anywhere gets the same module."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


nltk = lazy_module("nltk")
