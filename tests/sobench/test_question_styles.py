"""One question builder with styles (foakit.bench.sobench.questions_synth.STYLES)."""

from __future__ import annotations

import numpy as np
import pytest

from foakit.bench.sobench import questions_synth as qs
from foakit.errors import ParameterError
from foakit.synth.scene import random_scene


def test_styles_share_one_builder_and_the_varied_module_re_exports_it():
    from foakit.bench.sobench import questions_varied

    assert qs.WORDINGS == ("house", "varied")
    assert set(qs.STYLES["house"].builders) == set(qs.STYLES["varied"].builders) == \
        set(qs.GENERATED_TASKS)
    assert questions_varied.BUILDERS is qs.STYLES["varied"].builders
    assert questions_varied.VARIED_PREAMBLES is qs.VARIED_PREAMBLES


@pytest.mark.parametrize("seed", range(6))
def test_each_style_words_its_items_with_its_own_preambles_and_endings(seed):
    scene = random_scene(np.random.default_rng(seed), n_sources=3, allow_motion=True,
                         min_separation_deg=30.0)
    for name, style in qs.STYLES.items():
        items = qs.make_qa_items(scene, np.random.default_rng(seed), wording=name)
        assert items
        for it in items:
            q = it["question"]
            assert any(q.startswith(p) for p in style.preambles), q
            assert q.endswith(style.endings[it["task_name"]]), q
            assert all(0 <= r < len(scene.sources) for r in it["source_refs"])


def test_an_unknown_style_is_refused():
    scene = random_scene(np.random.default_rng(0), n_sources=2)
    with pytest.raises(ParameterError, match="wording='plain'"):
        qs.make_qa_items(scene, np.random.default_rng(0), wording="plain")
