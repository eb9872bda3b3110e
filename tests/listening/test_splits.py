"""Stratified train/validation/test splits and the disjoint subsets of test."""

import numpy as np
import pytest

from apps.listening.splits import SplitClip, disjoint_flags, split_counts, stratified_split


def _clips(n=1000, seed=3):
    rng = np.random.default_rng(seed)
    mos = np.round(rng.uniform(1, 5, size=n) * 5) / 5  # MOS of five ratings moves in steps of 0.2
    return [SplitClip(key=i, mos=float(mos[i]), speaker=f"spk{i % 60}", text=f"sentence {i % 400}") for i in range(n)]


def test_the_paper_sizes_come_out_exactly():
    assert split_counts(1000, (0.81, 0.09, 0.10)) == [810, 90, 100]
    assignment = stratified_split(_clips(), seed=1)
    values = list(assignment.values())
    assert (values.count("train"), values.count("validation"), values.count("test")) == (810, 90, 100)


def test_every_mos_band_is_shared_in_the_split_ratios():
    clips = _clips()
    assignment = stratified_split(clips, seed=1)
    ordered = sorted(clips, key=lambda c: c.mos)
    for start in range(0, 1000, 200):  # five MOS quintiles of 200 clips (a block edge may shift one or two)
        band = [assignment[c.key] for c in ordered[start:start + 200]]
        assert abs(band.count("test") - 20) <= 3
        assert abs(band.count("validation") - 18) <= 3
    test_mos = np.mean([c.mos for c in clips if assignment[c.key] == "test"])
    train_mos = np.mean([c.mos for c in clips if assignment[c.key] == "train"])
    assert abs(test_mos - train_mos) < 0.1


def test_the_same_seed_gives_the_same_split_and_another_seed_a_different_one():
    clips = _clips()
    assert stratified_split(clips, seed=5) == stratified_split(clips, seed=5)
    assert stratified_split(clips, seed=5) != stratified_split(clips, seed=6)


def test_disjoint_subsets_hold_only_speakers_and_texts_unseen_in_train_and_validation():
    clips = _clips()
    clips += [SplitClip(key=2000 + i, mos=3.0, speaker=f"new{i}", text=f"unseen {i}") for i in range(30)]
    assignment = stratified_split(clips, seed=2)
    flags = disjoint_flags(clips, assignment)
    seen_speakers = {c.speaker for c in clips if assignment[c.key] != "test"}
    seen_texts = {c.text for c in clips if assignment[c.key] != "test"}
    speaker_disjoint = [c for c in clips if flags[c.key][0]]
    text_disjoint = [c for c in clips if flags[c.key][1]]
    assert speaker_disjoint and text_disjoint
    assert all(assignment[c.key] == "test" for c in speaker_disjoint + text_disjoint)
    assert all(c.speaker not in seen_speakers for c in speaker_disjoint)
    assert all(c.text not in seen_texts for c in text_disjoint)
    # and every test clip that qualifies is flagged
    for c in clips:
        if assignment[c.key] == "test":
            assert flags[c.key] == (c.speaker not in seen_speakers, c.text not in seen_texts)


def test_the_split_does_not_depend_on_the_order_the_clips_come_in():
    clips = _clips()
    forward = stratified_split(clips, seed=7, hold_out_speakers=3, hold_out_texts=5)
    backward = stratified_split(list(reversed(clips)), seed=7, hold_out_speakers=3, hold_out_texts=5)
    assert backward == forward
    shuffled = list(clips)
    np.random.default_rng(0).shuffle(shuffled)
    assert stratified_split(shuffled, seed=7) == stratified_split(clips, seed=7)


def _komos_like(n=1000, speakers=200, texts=500, seed=0):
    """KOMOS-shaped: many speakers with about five clips each, texts read by two speakers each."""
    rng = np.random.default_rng(seed)
    return [
        SplitClip(key=i, mos=float(np.round(rng.uniform(1, 5) * 5) / 5), speaker=f"spk{i % speakers}", text=f"text {i % texts}")
        for i in range(n)
    ]


def test_held_out_speakers_and_texts_make_disjoint_subsets_of_the_papers_size():
    clips = _komos_like()
    # Without hold-outs the disjoint subsets are an accident of the draw (tiny on data like this).
    plain = disjoint_flags(clips, stratified_split(clips, seed=0))
    assert sum(f[0] for f in plain.values()) < 34
    assignment = stratified_split(clips, seed=0, hold_out_speakers=7, hold_out_texts=28)
    values = list(assignment.values())
    assert (values.count("train"), values.count("validation"), values.count("test")) == (810, 90, 100)
    flags = disjoint_flags(clips, assignment)
    speaker_disjoint = sum(f[0] for f in flags.values())
    text_disjoint = sum(f[1] for f in flags.values())
    # Seven speakers of five clips each and 28 texts of two clips each, every one of them in test only.
    assert speaker_disjoint >= 35 and text_disjoint >= 56
    held_speakers = {c.speaker for c in clips if flags[c.key][0]}
    assert len(held_speakers) >= 7
    assert all(assignment[c.key] == "test" for c in clips if c.speaker in held_speakers)


def test_holding_out_more_clips_than_test_holds_is_refused_with_the_numbers():
    clips = _komos_like()
    with pytest.raises(ValueError, match=r"the held-out speakers and texts have \d+ clips, more than the 100 clips of test"):
        stratified_split(clips, seed=0, hold_out_speakers=40)
    with pytest.raises(ValueError, match="cannot hold out 200 speakers: the clips have only 200"):
        stratified_split(clips, seed=0, hold_out_speakers=200)
