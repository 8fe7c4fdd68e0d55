"""redact_secrets: each planted secret is replaced and counted; code that merely mentions keys is not."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from readworthy.pack.identifiers import reads_as_identifier
from readworthy.pack.redact import redact_secrets

# Built from pieces so this file itself does not look like it leaks anything.
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
FINE_GRAINED = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP"
OPENAI_KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPL3"
GCP_KEY = "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"
SLACK = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA7V2kqjLQwPqQ1example0key0material0here0abc\n"
    "q8W9e0r1t2y3u4i5o6p7a8s9d0f1g2h3j4k5l6z7x8c9v0b1n2m3QWERTY\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"token = '{GITHUB_TOKEN}'", GITHUB_TOKEN, "github_token"),
        (f"GH={FINE_GRAINED}", FINE_GRAINED, "github_pat"),
        (f'client = OpenAI(api_key="{OPENAI_KEY}")', OPENAI_KEY, "openai_key"),
        (f"aws_access_key_id = {AWS_KEY_ID}", AWS_KEY_ID, "aws_access_key"),
        (f"maps: {GCP_KEY}", GCP_KEY, "gcp_api_key"),
        (f"SLACK_BOT={SLACK}", SLACK, "slack_token"),
        ("SECRET_KEY=9f8a7B6c5D4e3F2a1B0cZ", "9f8a7B6c5D4e3F2a1B0cZ", "assignment"),
        ('"aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY3xAmPl3K3y"', "wJalrXUtnFEMI", "assignment"),
        ('DB_PASSWORD = "hunter22!"', "hunter22!", "assignment"),
        ("  auth_token: Zq8W3rT6yU9iO2pA5sD8fG1h", "Zq8W3rT6yU9iO2pA5sD8fG1h", "assignment"),
    ],
)
def test_each_kind_is_replaced_and_counted(text: str, secret: str, kind: str) -> None:
    out, count = redact_secrets(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert count == 1


def test_private_key_blocks_in_a_diff_and_in_json() -> None:
    diff = "\n".join("+" + line for line in PEM.split("\n")) + "\n+next_line = 1"
    out, count = redact_secrets(diff)
    assert "MIIEowIBAAKCAQEA" not in out and "QWERTY" not in out and count == 1
    assert "+next_line = 1" in out
    as_json = '{"private_key": "' + PEM.replace("\n", "\\n") + '\\n"}'
    out, count = redact_secrets(as_json)
    assert "MIIEowIBAAKCAQEA" not in out and count == 1
    truncated = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabcdEFGH1234ijkl"
    out, count = redact_secrets(truncated)
    assert "MIIEvQIBADAN" not in out and "abcdEFGH1234" not in out and count == 1


def test_several_secrets_are_all_counted_and_redaction_is_idempotent() -> None:
    text = f"a={GITHUB_TOKEN}\nb: {AWS_KEY_ID}\n{PEM}\npassword = 'correct horse'"
    out, count = redact_secrets(text)
    assert count == 4
    assert redact_secrets(out) == (out, 0)


@pytest.mark.parametrize(
    "text",
    [
        "api_key = args.api_key",
        "token = get_token(session)",
        "max_tokens = 1024",
        "self.key_cache = torch.empty(num_blocks, block_size)",
        'kv_cache_key = "layer_0_key_cache"',
        "password: ${{ secrets.DB_PASSWORD }}",
        'OPENAI_API_KEY="your-api-key-here"',
        "export HF_TOKEN=<your token>",
        "secret = None",
        "Use sk-learn for the baseline",
        "num_tokens_per_key: 128",
        'token_ids = tokenizer.encode("hello")',
        "--api-key $OPENAI_API_KEY",
    ],
)
def test_code_that_mentions_keys_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == (text, 0)


@pytest.mark.vllm_fixtures
def test_no_false_positives_on_real_vllm_diffs(vllm_fixtures: Path) -> None:
    """4.7 MB of real code, configs and lock files: nothing in it is a secret."""
    for patch in sorted(vllm_fixtures.glob("*/diff.patch")):
        text = patch.read_bytes().decode("utf-8", errors="replace")
        out, count = redact_secrets(text)
        assert count == 0, patch.parent.name
        assert out == text


# --------------------------------------------------------------------------- precision (issue 16)

LOOKALIKES = Path(__file__).resolve().parents[1] / "data" / "redaction_lookalikes.txt"


def _lookalike_lines() -> list[str]:
    lines = LOOKALIKES.read_text(encoding="utf-8").split("\n")
    return [line for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("line", _lookalike_lines())
def test_lookalikes_from_real_code_are_left_alone(line: str) -> None:
    assert redact_secrets(line) == (line, 0)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('API_KEY = "sk-test-' + "4f9Qx2Lm8Rt6Vb1Nc7Hd3Kw5" + '"', "4f9Qx2Lm8Rt6Vb1Nc7Hd3Kw5"),  # a key in a test
        ('"password": "Password123!"', "Password123!"),  # a test password is still a password
        ('SECRET_KEY = "' + "Zq8W3rT6yU9iO2pA5sD8fG1h" + '"', "Zq8W3rT6yU9iO2pA5sD8fG1h"),
        ("weight_key=" + "Zq8W3rT6yU9iO2pA5sD8fG1h", "Zq8W3rT6yU9iO2pA5sD8fG1h"),  # a key as a keyword argument
        ("STRIPE_TOKEN=sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
        ('api_key: "' + "kFp8" + "Zq8W3rT6yU9iO2pA5sD8" + '"', "Zq8W3rT6yU9iO2pA5sD8"),  # a word-ish start
    ],
)
def test_keys_that_share_a_look_alikes_context_are_still_redacted(text: str, secret: str) -> None:
    out, count = redact_secrets(text)
    assert secret not in out and count == 1


def test_a_message_about_a_password_is_not_a_password() -> None:
    for text in ('{"confirm_password": "Passwords do not match."}', '"password": "Password"',
                 'label_password = "Enter your password"'):
        assert redact_secrets(text) == (text, 0)
    assert redact_secrets('password = "correct horse"')[1] == 1  # a passphrase has spaces too


@pytest.mark.parametrize("alphabet", [
    "0123456789abcdef",
    "abcdefghijklmnopqrstuvwxyz0123456789",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
])
def test_random_keys_of_real_length_are_never_read_as_names(alphabet: str) -> None:
    """Keys of 24+ characters, as services issue them: the word test lets none of them through, so the
    length and entropy rule decides for them exactly as it did before look-alikes were exempted."""
    rng = random.Random(alphabet)
    for length in (24, 32, 40, 64):
        for _ in range(1000):
            key = "".join(rng.choice(alphabet) for _ in range(length))
            assert not reads_as_identifier(key), key


@pytest.mark.parametrize(("value", "expected"), [
    ("kMxfp8Dynamic", True), ("kFp8StaticTensorSym", True), ("Ed25519PrivateKey", True), ("TokenStream2", True),
    ("tool_message_v2_content", True), ("model.layers.0.mlp.experts.0.gate_proj.weight", True),
    ("meta-llama/Llama-3.1-8B-Instruct", True), ("VLLM_API_KEY_V2", True), ("Secp256k1SigningKey", True),
    ("Zq8W3rT6yU9iO2pA5sD8fG1h", False), ("9f8a7B6c5D4e3F2a1B0cZ", False), ("q8xkdhf9wlp2mzrt7v", False),
    ("wJalrXUtnFEMI/K7MDENG/bPxRfiCY3xAmPl3K3y", False), ("a3f9e0b1c2d4e5f6a7b8", False),
    ("xkcd_4f8a_9b2e_1c3d", False), ("hunter22!", False), ("YWJjZGVmZ2hpamtsbW5vcA==", False),
])
def test_what_reads_as_a_name(value: str, expected: bool) -> None:
    assert reads_as_identifier(value) is expected
