"""KOR-Bench prompt texts: the official zero-shot (chat), three-shot (base), trick (puzzle), mixed and
self-correction templates, so official and generated items are asked exactly the way the study asked them.

The texts are the official ``config/prompt/*.yaml`` templates (KOR-Bench @ bb8194d) as Python
strings: a prompt is part of the method, and a model scored on a reworded prompt is not comparable
with the published numbers.  ``tests/unit/kor/test_kor_family.py`` renders them against the official
YAML files whenever the reference folder is present, so a drift is caught.

The *mixed* template's two slots are filled as the official inference code fills them
(``infer/data_loader.py``): the rule texts, each followed by a blank line, without titles or numbers,
and the questions as ``question<k>:`` on a line of its own, the question text and a blank line —
``question<k>`` being the key the template's JSON example asks the model to answer under.
"""

from __future__ import annotations

from collections.abc import Sequence

TEMPLATE_VERSION = "kor-v1"
ZERO_SHOT = "zero_shot"
THREE_SHOT = "three_shot"
# App. F.2: a puzzle question asked zero-shot with its "trick" (a solving hint of the official data).
TRICK = "trick"
# §6.4 / App. K: "only questions", the zero-shot and three-shot prompts with the rule withheld (App. A's
# knowledge impact: what a model answers from prior knowledge, or from three solved examples, alone).
ZERO_SHOT_ONLY_QUESTIONS = "zero_shot_only_questions"
THREE_SHOT_ONLY_QUESTIONS = "three_shot_only_questions"
ONLY_QUESTIONS: dict[str, str] = {ZERO_SHOT_ONLY_QUESTIONS: ZERO_SHOT, THREE_SHOT_ONLY_QUESTIONS: THREE_SHOT}
"""Each only-questions setting and the rule-given setting it is compared with."""
SETTINGS: tuple[str, ...] = (ZERO_SHOT, THREE_SHOT, TRICK, *ONLY_QUESTIONS)
MIXED_SETTINGS: tuple[str, ...] = ("Multi-Q", "Multi-R", "Multi-RQ")
SELF_CORRECT = "self_correct"

_HEADS: dict[str, tuple[str, str, str]] = {
    # category: (role sentence, instructions, rule heading)
    "cipher": (
        "You are an intelligent assistant that specializes in encryption and decryption tasks. Below are "
        "the rules for a specific cipher. When responding, please ensure that your output adheres to the "
        "specified encryption and decryption rules and format.",
        "1. Identify the relevant properties and objects specified in the rule, including the plaintext, "
        "keyword, and ciphertext.\n"
        "2. Follow the specified encryption or decryption operations precisely as described in the rules.\n"
        "3. Ensure your output is formatted according to the specified notation and symbols.",
        "Cipher Rule",
    ),
    "counterfactual": (
        "You are an advanced assistant with expertise in storytelling and rule-based reasoning. Your task "
        "is to carefully analyze the provided story, which includes specific rules and details, and use "
        "this information to accurately answer related questions.",
        "1. Thoroughly review the story to identify and understand the relevant details and rules.\n"
        "2. Use the context provided by the story to offer precise and insightful answers.\n"
        "3. Ensure your responses align with the rules and information given in the story.",
        "Story Rule",
    ),
    "logic": (
        "You are an intelligent assistant that helps with various logical reasoning tasks. Below is a "
        "custom-defined rule for a specific type of logic. When responding, please ensure that your output "
        "adheres to the specified logical rules and format.",
        "1. Identify the relevant properties and objects as specified in the rule.\n"
        "2. Apply the given logical operations or reasoning patterns.\n"
        "3. Ensure your output is formatted according to the specified notation and symbols.",
        "Logic Rule",
    ),
    "operation": (
        "You are an intelligent assistant specializing in evaluating custom operations. Below is a specific "
        "rule defined for a custom operation. Your task is to apply this rule accurately to the provided "
        "question.",
        "1. Carefully read and understand the definitions of the new operations in the rule.\n"
        "2. If the question does not specifically ask for it, your answer should be a number or a group of "
        "numbers.\n"
        "3. Double-check your final answer to ensure it follows the rule accurately.",
        "Operation Rule",
    ),
    "puzzle": (
        "You are an intelligent assistant specializing in solving custom puzzle problems. Below is a "
        "specific rule defined for a custom puzzle. Your task is to apply this rule accurately to the "
        "provided question.",
        "1. Thoroughly understand the rule provided. If needed, break down the rule into simpler "
        "components or steps.\n"
        "2. Apply the rule carefully to address the question presented.\n"
        "3. Verify your answer to ensure it aligns with the rule and the context of the puzzle.",
        "Puzzle Rule",
    ),
}

MIXED_HEAD = (
    "You are an intelligent assistant capable of handling all types of reasoning and problem-solving "
    "tasks. Below is the text of a set of rules. Your task is to apply the appropriate rules to solve a "
    "series of problems.\n\n### Instructions:\n"
    "1. Read each question carefully and rules to find something relevant to that question.\n"
    "2. Use the relevant rules to answer each question accurately.\n"
    "3. Provide the final answers to all questions in JSON format.\n"
    '  {\n  "question1": "your answer",\n  "question2": "your answer",\n  "question3": "your answer",\n'
    "  }\n\n### Rules:\n\n"
)

FOLLOW_UP = "Your answer is incorrect, please check your answer and provide a correct one."
"""The official self-correction message (``self-correction.yaml``), sent after every wrong answer."""


def head(category: str) -> str:
    """Everything of a category's prompt before the rule text."""
    role, instructions, heading = _HEADS[category]
    return f"{role}\n\n### Instructions:\n\n{instructions}\n\n### {heading}:\n\n"


def zero_shot(category: str, rule: str, question: str) -> str:
    """The official zero-shot prompt: role, instructions, rule, question, an open answer."""
    return f"{head(category)}{rule}\n\n### Question:\n{question}\n\n### Answer:\n"


def trick(rule: str, question: str, hint: str) -> str:
    """The official puzzle prompt with a trick (``trick.yaml``): zero-shot, the hint after the question."""
    return f"{head('puzzle')}{rule}\n\n### Question:\n{question}\n\n{hint}\n\n### Answer:\n"


def three_shot(category: str, rule: str, shots: Sequence[tuple[str, str]], question: str) -> str:
    """The official three-shot prompt: three solved questions of the same rule before the question."""
    if len(shots) != 3:
        raise ValueError(f"three-shot needs exactly 3 examples, got {len(shots)}")
    solved = "".join(f"\n\n### Question:\n{q}\n\n### Answer:\n{a}" for q, a in shots)
    return f"{head(category)}{rule}{solved}\n\n### Question:\n{question}\n\n### Answer:\n"


def only_questions(category: str, shots: Sequence[tuple[str, str]], question: str) -> str:
    """§6.4 / App. K's "only questions" prompt: the official zero-shot (no ``shots``) or three-shot
    prompt with the rule section (its heading and text) left out, every other byte as in the template.

    The official repository has no template for it and the paper's App. K is not in the seed text, so
    this is our reading: withholding the rule is the only change, so the accuracy difference to the
    rule-given prompt is the rule's contribution (App. A's knowledge impact).
    """
    if shots and len(shots) != 3:
        raise ValueError(f"three-shot needs exactly 3 examples, got {len(shots)}")
    role, instructions, _heading = _HEADS[category]
    solved = "".join(f"\n\n### Question:\n{q}\n\n### Answer:\n{a}" for q, a in shots)
    asked = f"\n\n### Question:\n{question}\n\n### Answer:\n"
    return f"{role}\n\n### Instructions:\n\n{instructions}{solved}{asked}"


def mixed(rules: Sequence[tuple[str, str]], questions: Sequence[str]) -> str:
    """The official mixed prompt over ``rules`` (title, text; the title is not shown) and ``questions``
    (answered as JSON)."""
    rule_text = "\n".join(f"{text}\n" for _title, text in rules)
    question_text = "\n".join(f"question{k}:\n{q}\n" for k, q in enumerate(questions, 1))
    return f"{MIXED_HEAD}{rule_text}\n\n### Questions:\n{question_text}\n\n### Answers:\n"
