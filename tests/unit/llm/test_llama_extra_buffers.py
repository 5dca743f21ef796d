"""On a CPU that advertises Intel AMX the local model loads without llama.cpp's extra buffer types.

Why: llama.cpp's AMX kernels crash the process at the first decode (SIGSEGV at ``ldtilecfg``,
llama.cpp issue #20824); see ``local_provider.extra_buffer_types_enabled``.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm import local_provider


def test_amx_cpus_load_without_extra_buffer_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: True)
    assert local_provider.extra_buffer_types_enabled() is False
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: False)
    assert local_provider.extra_buffer_types_enabled() is True


@pytest.mark.parametrize("expected", [True, False])
def test_the_entrys_extra_buffers_param_overrides_the_guess(
    monkeypatch: pytest.MonkeyPatch, expected: bool
) -> None:
    monkeypatch.setattr(local_provider, "_cpu_advertises_amx", lambda: not expected)
    assert local_provider.extra_buffer_types_enabled(expected) is expected


def test_the_load_params_are_checked_in_models_yaml(tmp_path) -> None:
    from relreason_dagster.errors import ConfigError
    from relreason_dagster.llm.registry import load_registry

    path = tmp_path / "models.yaml"
    path.write_text(
        "models:\n  - name: m\n    litellm_model: local/smollm2-135m\n"
        "    params: {n_threads: 2, flash_attn: false, extra_buffers: true}\n"
    )
    assert load_registry(path)["m"].params == {"n_threads": 2, "flash_attn": False, "extra_buffers": True}
    path.write_text(
        "models:\n  - name: m\n    litellm_model: local/smollm2-135m\n    params: {flash_attn: 0}\n"
    )
    with pytest.raises(ConfigError, match=r"params\.flash_attn: expected true or false"):
        load_registry(path)


def test_the_load_guard_turns_extra_buffers_off_and_restores_the_defaults() -> None:
    pytest.importorskip("llama_cpp")
    from relreason_dagster.common.tokenizer import import_llama_cpp

    import_llama_cpp()
    import llama_cpp.llama_cpp as raw

    original = raw.llama_model_default_params
    assert original().use_extra_bufts is True
    with local_provider._model_params_without_extra_buffers():
        assert raw.llama_model_default_params().use_extra_bufts is False
    assert raw.llama_model_default_params is original
