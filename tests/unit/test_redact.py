"""redact_secrets: each planted secret is replaced and counted; code that merely mentions keys is not."""

from __future__ import annotations

from pathlib import Path

import pytest

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
