"""Stratified train/validation/test splits and the disjoint subsets of test."""

import numpy as np

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
