"""Reading Korean ASR corpora into rows (no database here): KSS, Zeroth-Korean, KsponSpeech and a generic
manifest (CSV or JSONL). Every row is validated by one pydantic model; every problem is reported as
`file line N: field: reason`, and the caller refuses the whole import when there is any.

Text: every transcript is NFC-normalised (KSS column 4 is decomposed jamo, and macOS tools write NFD);
the raw text is kept beside a clean written transcript derived for question generation: one side of each
KsponSpeech dual spelling `(70%)/(칠 십 퍼센트)` (the written one, the first), its noise and disfluency tags
removed."""

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError, field_validator

from apps.authoring.capabilities import AGE_ALIASES, GENDER_ALIASES
from apps.core.errors import FileRefused
from apps.core.tabular import RowModel, hostile, parse_table

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg", ".pcm")


class ClipRow(RowModel):
    """One utterance as a corpus describes it (every format's rows go through this model)."""

    utterance_id: str
    audio: str
    transcript: str
    speaker_id: str = ""
    gender: str = ""
    age_group: str = ""
    num_speakers: int | None = None

    @field_validator("utterance_id", "audio", "transcript")
    @classmethod
    def _required(cls, value: str) -> str:
        if not value:
            raise ValueError("is empty")
        return value

    @field_validator("gender", mode="before")
    @classmethod
    def _gender(cls, value) -> str:
        value = "" if value is None else str(value).strip()
        if not value:
            return ""
        if value.lower() not in GENDER_ALIASES:
            raise ValueError(f"unknown gender {value!r} (expected one of male, female, m, f, 남성, 여성)")
        return str(GENDER_ALIASES[value.lower()])

    @field_validator("age_group", mode="before")
    @classmethod
    def _age(cls, value) -> str:
        value = "" if value is None else str(value).strip()
        if not value:
            return ""
        if value.lower() not in AGE_ALIASES:
            raise ValueError(f"unknown age group {value!r} (expected young, middle or senior: 청년, 중년, 노년)")
        return str(AGE_ALIASES[value.lower()])

    @field_validator("num_speakers", mode="before")
    @classmethod
    def _speakers(cls, value):
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        text = str(value).strip()
        if isinstance(value, bool) or not re.fullmatch(r"\d+", text) or int(text) < 1:
            raise ValueError(f"number of speakers must be a positive whole number, not {value!r}")
        return int(text)


@dataclass
class ParsedRow:
    row: ClipRow
    audio_path: Path
    file: str
    line: int


class Parsed:
    def __init__(self):
        self.rows: list[ParsedRow] = []
        self.problems: list[str] = []

    def add(self, data: dict, *, base: Path, file: str, line: int) -> None:
        if found := hostile(data):  # the text formats (KSS, Zeroth, Kspon) get the tabular reader's checks
            self.problems.append(f"{file} line {line}: {found[0] or 'row'}: {found[1]}")
            return
        try:
            row = ClipRow.model_validate(data)
        except ValidationError as exc:
            for error in exc.errors():
                field = ".".join(str(p) for p in error["loc"]) or "row"
                message = error["msg"].removeprefix("Value error, ")
                self.problems.append(f"{file} line {line}: {field}: {message}")
            return
        self.rows.append(ParsedRow(row=row, audio_path=base / row.audio, file=file, line=line))


# ---- text -------------------------------------------------------------------------------------------------

_DUAL = re.compile(r"\(([^()]*)\)/\(([^()]*)\)")
_TAG = re.compile(r"(?<![\w/])[bnlou]/")
_SPACES = re.compile(r"\s+")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def clean_written(text: str) -> str:
    """The written transcript of a (KsponSpeech-style) raw transcript: the first side of each dual spelling,
    noise/disfluency tags (b/ n/ l/ o/ u/) removed, filler and uncertainty marks (`어/`, `+`, `*`) dropped."""
    text = _DUAL.sub(lambda m: m.group(1), nfc(text))
    text = _TAG.sub(" ", text)
    text = re.sub(r"(\w)/", r"\1", text)  # a filler word marked `음/` keeps the word
    text = text.replace("+", "").replace("*", "")
    return _SPACES.sub(" ", text).strip()


# ---- formats ----------------------------------------------------------------------------------------------


def parse_kss(path: Path, audio_dir: Path | None) -> Parsed:
    """KSS transcript.v.1.4.txt: `path|original|expanded|decomposed|duration|english`, one female speaker.
    The expanded column (numbers spelt out as read) is the written transcript."""
    out = Parsed()
    base = audio_dir or path.parent
    for number, line in _lines(path, out):
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 6:
            out.problems.append(f"{path.name} line {number}: row: expected 6 fields separated by |, found {len(parts)}")
            continue
        audio, original, expanded, _decomposed, _duration, _english = parts
        out.add({"utterance_id": Path(audio).stem if audio else "", "audio": audio, "transcript": expanded or original,
                 "speaker_id": "kss", "gender": "female", "num_speakers": 1},
                base=base, file=path.name, line=number)
    return out


def parse_zeroth(path: Path, audio_dir: Path | None) -> Parsed:
    """Zeroth-Korean: a folder of `*.trans.txt` files (lines `UTTID text`, audio UTTID.flac beside it) and
    AUDIO_INFO (pipe-separated, speaker id first, gender in field 3). `path` is the folder (or AUDIO_INFO)."""
    out = Parsed()
    root = path if path.is_dir() else path.parent
    info_path = root / "AUDIO_INFO"
    speakers: dict[str, str] = {}
    if info_path.is_file():
        for number, line in _lines(info_path, out):
            if not line.strip() or number == 1 and line.upper().startswith("SPEAKERID"):
                continue
            fields = line.split("|")
            if len(fields) < 3:
                out.problems.append(f"AUDIO_INFO line {number}: row: expected at least 3 fields separated by |")
                continue
            speakers[fields[0].strip()] = fields[2].strip()
    else:
        out.problems.append(f"{root.name}: AUDIO_INFO: not found (it gives each speaker's gender)")
    trans_files = sorted(root.rglob("*.trans.txt"))
    if not trans_files:
        out.problems.append(f"{root.name}: no *.trans.txt files found")
    for trans in trans_files:
        rel = str(trans.relative_to(root))
        for number, line in _lines(trans, out):
            if not line.strip():
                continue
            utt, _, text = line.partition(" ")
            speaker = utt.split("_")[0]
            audio = _find_audio(audio_dir or trans.parent, utt, prefer=trans.parent) or trans.parent / f"{utt}.flac"
            out.add({"utterance_id": utt, "audio": str(audio), "transcript": text, "speaker_id": speaker,
                     "gender": speakers.get(speaker, ""), "num_speakers": 1},
                    base=Path("/"), file=rel, line=number)
    return out


def parse_kspon(path: Path, audio_dir: Path | None) -> Parsed:
    """KsponSpeech: one cp949 `.txt` per `.pcm` (16 kHz 16-bit mono raw PCM), in a folder tree. Speaker
    metadata is not part of the release, so only transcript questions come from it."""
    out = Parsed()
    root = path if path.is_dir() else path.parent
    texts = sorted(root.rglob("*.txt")) if path.is_dir() else [path]
    if not texts:
        out.problems.append(f"{root.name}: no .txt transcripts found")
    for txt in texts:
        rel = str(txt.relative_to(root))
        try:
            content = txt.read_bytes().decode("cp949")
        except UnicodeDecodeError as exc:
            out.problems.append(f"{rel} line 1: transcript: not cp949 text ({exc.reason} at byte {exc.start})")
            continue
        lines = [(n, line) for n, line in enumerate(content.splitlines(), start=1) if line.strip()]
        if len(lines) != 1:
            out.problems.append(f"{rel} line 1: transcript: expected one line of text, found {len(lines)}")
            continue
        number, text = lines[0]
        pcm = (audio_dir / txt.relative_to(root)).with_suffix(".pcm") if audio_dir else txt.with_suffix(".pcm")
        out.add({"utterance_id": txt.stem, "audio": str(pcm), "transcript": text, "num_speakers": None},
                base=Path("/"), file=rel, line=number)
    return out


MANIFEST_COLUMNS = ["utterance_id", "audio", "transcript", "speaker_id", "gender", "age_group", "num_speakers"]


def parse_manifest(path: Path, audio_dir: Path | None) -> Parsed:
    """CSV (header row), JSONL, a JSON array or Parquet with the columns of MANIFEST_COLUMNS, read by the
    shared tabular reader; metadata columns are optional. Audio paths are relative to --audio, else to the
    manifest's folder."""
    out = Parsed()
    base = audio_dir or path.parent
    try:
        rows, problems = parse_table(path, ClipRow)
    except FileRefused as refused:
        out.problems += [str(p) for p in refused.problems]
        return out
    out.problems += [str(p) for p in problems]
    for line, row in rows:
        out.rows.append(ParsedRow(row=row, audio_path=base / row.audio, file=path.name, line=line))
    return out


PARSERS = {"kss": parse_kss, "zeroth": parse_zeroth, "kspon": parse_kspon, "manifest": parse_manifest}


def parse_corpus(fmt: str, path: Path, audio_dir: Path | None = None) -> Parsed:
    """Rows and problems of a corpus file; also flags duplicate utterance ids and missing audio files."""
    if fmt not in PARSERS:
        raise ValueError(f"unknown corpus format {fmt!r}; expected one of {', '.join(PARSERS)}")
    path = Path(path)
    if not path.exists():
        parsed = Parsed()
        parsed.problems.append(f"{path}: no such file or folder")
        return parsed
    parsed = PARSERS[fmt](path, Path(audio_dir) if audio_dir else None)
    seen: dict[str, ParsedRow] = {}
    for item in parsed.rows:
        first = seen.get(item.row.utterance_id)
        if first is not None:
            parsed.problems.append(f"{item.file} line {item.line}: utterance_id: duplicate id {item.row.utterance_id!r} "
                                   f"(first at {first.file} line {first.line})")
            continue
        seen[item.row.utterance_id] = item
        if not item.audio_path.is_file():
            parsed.problems.append(f"{item.file} line {item.line}: audio: missing audio file {item.row.audio!r}")
    return parsed


def _lines(path: Path, out: Parsed):
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        out.problems.append(f"{path.name} line 1: file: not UTF-8 text ({exc.reason} at byte {exc.start})")
        return
    yield from enumerate(text.splitlines(), start=1)


def _find_audio(folder: Path, utt: str, *, prefer: Path) -> Path | None:
    for directory in (prefer, folder):
        for suffix in (".flac", ".wav"):
            candidate = directory / f"{utt}{suffix}"
            if candidate.is_file():
                return candidate
    return None
