"""A Hugging Face tokenizer made for tests: one token per word of a small vocabulary (anything else one
``[UNK]``), saved as a local tokenizer folder, so an expected count is the number of words of the text."""

from __future__ import annotations

import json
from pathlib import Path

WORDS = ("user", "assistant", "is", "the", "cat", "red", "[UNK]")


def word_tokenizer_folder(root: Path, template: str | None = None) -> Path:
    """``root`` made a tokenizer folder: ``tokenizer.json`` and, with ``template``, ``tokenizer_config.json``
    holding it as the chat template."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    root.mkdir(parents=True)
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(root / "tokenizer.json"))
    if template is not None:
        (root / "tokenizer_config.json").write_text(json.dumps({"chat_template": template}), encoding="utf-8")
    return root
