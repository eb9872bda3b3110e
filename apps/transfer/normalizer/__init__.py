"""The deterministic speech-friendly Korean normalizer as a package: `tables` (a rulebook version's tables,
refused up front when one the engine reads is missing), `engine` (the Normalizer over kiwipiepy's spans),
`numbers` (a number and what qualifies it, as an ordered table of cases) and `validate`. Used by the
normalization stage (apps.transfer.normalization) and by apps.speech, which reads each text it synthesizes."""

from apps.transfer.normalizer.engine import MAX_CHARS, Normalized, Normalizer, Pending, normalizer_for
from apps.transfer.normalizer.tables import MissingTables, Tables
from apps.transfer.normalizer.validate import validate

__all__ = ["MAX_CHARS", "MissingTables", "Normalized", "Normalizer", "Pending", "Tables", "normalizer_for", "validate"]
