"""The dataset card (README.md): YAML front matter as the Hugging Face Hub reads it (license, language, task
categories, size category, configs with data_files, dataset_info with features), then a description a person
reads: what it is, how it was built, statistics, licence and sources, files, loading, and how to cite."""

from dataclasses import dataclass

import yaml

from apps.releases.writing import yaml_features

SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M")]


def size_category(n: int) -> str:
    for bound, label in SIZE_CATEGORIES:
        if n < bound:
            return label
    return "n>10M"


@dataclass(frozen=True)
class SplitSize:
    num_bytes: int  # the split's Arrow size, as `datasets` counts it
    download_size: int  # its Parquet file's size


def front_matter(*, release, built, data_files: dict[str, dict[str, str]], counts: dict[str, dict[str, int]],
                 sizes: dict[str, dict[str, SplitSize]], languages: list[str]) -> dict:
    """The YAML front matter; `dataset_info` carries every field the Hub's validator expects (features, splits
    with num_bytes and num_examples, download_size, dataset_size), so `datasets` reads it whole."""
    return {
        "pretty_name": f"{release.name} {release.version}",
        "license": release.license.lower(),
        "language": languages,
        "task_categories": built.task_categories,
        "size_categories": [size_category(len(built.items))],
        "tags": built.tags,
        "configs": [
            {"config_name": config, "data_files": [{"split": split, "path": path} for split, path in splits.items()]}
            for config, splits in data_files.items()
        ],
        "dataset_info": [
            {"config_name": config, "features": yaml_features(built.columns[config]),
             "splits": [{"name": split, "num_bytes": sizes[config][split].num_bytes,
                         "num_examples": counts[config][split]} for split in splits],
             "download_size": sum(size.download_size for size in sizes[config].values()),
             "dataset_size": sum(size.num_bytes for size in sizes[config].values())}
            for config, splits in data_files.items()
        ],
    }


def render(*, release, built, data_files, counts, sizes, languages, rulebook_versions: list[str],
           agent_models: list[str]) -> str:
    meta = front_matter(release=release, built=built, data_files=data_files, counts=counts, sizes=sizes,
                        languages=languages)
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    lines = [f"# {release.name} {release.version}", ""]
    if release.description:
        lines += [release.description.strip(), ""]
    lines += [f"A {release.get_kind_display()} release built by Sori from the {release.selection.get('source')} "
              f"{release.selection.get('name')!r}.", "", "## How it was built", ""]
    lines += [f"- {line}" for line in built.how_built]
    lines.append(f"- Rulebook versions: {', '.join(rulebook_versions) if rulebook_versions else 'none'}.")
    lines.append(f"- Agent models: {', '.join(agent_models) if agent_models else 'none'}.")
    lines += ["", "## Statistics", "", "| | |", "|---|---|"]
    for key, value in built.statistics.items():
        shown = ", ".join(f"{k}: {v}" for k, v in value.items()) if isinstance(value, dict) else value
        lines.append(f"| {key} | {shown} |")
    lines += ["", "Rows per config and split:", ""]
    for config, splits in counts.items():
        lines.append(f"- `{config}`: " + ", ".join(f"{split} {n}" for split, n in splits.items()))
    lines += ["", "## Licence and sources", "", f"This release is licensed under {release.license}. Sources:", ""]
    lines += [f"- {s['name']}: {s['license']}" for s in release.sources]
    lines += ["", "## Files", "",
              "- `data/`: one Parquet file per config and split, and the same rows as JSONL.",
              "- Audio files: the `audio` column holds each file's path relative to this folder.",
              "- `provenance.jsonl`: one line per item: its source, rulebook versions, agent calls (prompt "
              "versions and input hashes) and human decisions (counts and pseudonyms).",
              "- `release.json`: the release manifest (selection, counts, writer versions).",
              "- `SHA256SUMS`: the sha256 of every other file (`sha256sum -c SHA256SUMS`)."]
    lines += [f"- `{path}`: {what}" for path, what in built.extra_files.items()]
    first = next(iter(data_files))
    lines += ["", "## Loading", "", "```python", "from datasets import Audio, load_dataset",
              "", f'ds = load_dataset("parquet", data_files={{"{next(iter(data_files[first]))}": '
              f'"{next(iter(data_files[first].values()))}"}})',
              'ds = ds.cast_column("audio", Audio(decode=False))  # paths relative to the release folder', "```",
              "", "## Citation", "", "```bibtex",
              f"@misc{{{release.name.replace('-', '_')}_{release.version.replace('.', '_')},",
              f"  title = {{{release.name} {release.version}}},",
              "  note = {Dataset release built with Sori},", "}", "```", ""]
    return f"---\n{head}---\n\n" + "\n".join(lines)
