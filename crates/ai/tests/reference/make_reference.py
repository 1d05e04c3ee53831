#!/usr/bin/env python3
"""Reference fixtures for folio-ai's MiniLM tests, independent of the Rust code.

- tokenizer_ids.json: ids of tricky strings from the Hugging Face `tokenizers` library over the
  shipped tokenizer.json (truncation set to 256, no padding).
- minilm_reference.json: all-MiniLM-L6-v2 sentence embeddings from a plain numpy BERT forward pass
  in float64 over model.safetensors (mean pooling over the mask, L2 normalisation), ids from the
  same tokenizer.

Run (needs: pip install numpy safetensors tokenizers):
    python3 crates/ai/tests/reference/make_reference.py .assets/minilm crates/ai/tests/reference
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_LEN = 256

TOKENIZER_CASES = [
    "Hello, world!",
    "The Licensee's obligations under Rule 3.2.1(a)-(c) are NOT affected.",
    "Café naïve résumé Ångström façade — Zürich",
    "中文字符和English混合",
    "tab\there\nnewline\r\nand\u00a0nbsp\u200bzero-width\u0000nul\ufffdrepl",
    "unaffordable antidisestablishmentarianism xylophonist",
    "e-mail: info@example.com; URL https://example.org/a_b?c=d&e=f#g",
    "£100, €20, ¥3 and 50% ¼ ½ ² ³ ™ ©",
    "ÉCOLE ÎLE Œuvre ß ǅ İstanbul",
    "Привет мир, Γειά σου κόσμε, مرحبا بالعالم",
    "emoji 🙂 and symbols ✓ ★ → ≥",
    "a" * 120 + " short",
    "«quoted» „German“ ‘single’ …ellipsis… ¿qué? ¡sí!",
    "",
]

EMBED_SENTENCES = [
    "The licensee must keep records of all transactions for at least six years.",
    "A penalty of up to USD 50,000 may be imposed for late filing of the annual return.",
    "How long do I have to retain customer due diligence documents?",
    "Le règlement s'applique aux établissements financiers agréés à Abu Dhabi.",
    # Long enough to be truncated at 256 pieces; also makes the batch padded.
    " ".join(
        "Section {n}: the Regulator may, by notice in writing, require an Authorised Person to "
        "provide information, documents or reports within a reasonable period.".format(n=n)
        for n in range(1, 16)
    ),
]


def tokenizer(asset_dir: Path) -> Tokenizer:
    tok = Tokenizer.from_file(str(asset_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LEN)
    return tok


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def bert_embed(weights, cfg, ids):
    """Sentence embedding of one id sequence (no padding needed for a batch of one)."""
    w = {k: v.astype(np.float64) for k, v in weights.items() if v.dtype != np.int64}
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    hidden = cfg["hidden_size"]
    hd = hidden // heads
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def lin(t, name):
            return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = lin(x, "attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = s - s.max(-1, keepdims=True)
        pr = np.exp(s)
        pr = pr / pr.sum(-1, keepdims=True)
        ctx = (pr @ v).transpose(1, 0, 2).reshape(n, hidden)
        a = layer_norm(
            lin(ctx, "attention.output.dense") + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inner = gelu(lin(a, "intermediate.dense"))
        x = layer_norm(
            lin(inner, "output.dense") + a,
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
            eps,
        )
    mean = x.mean(0)
    return mean / np.linalg.norm(mean)


def main():
    asset_dir = Path(sys.argv[1] if len(sys.argv) > 1 else ".assets/minilm")
    out_dir = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent)
    tok = tokenizer(asset_dir)

    cases = [{"text": t, "ids": tok.encode(t).ids} for t in TOKENIZER_CASES]
    lines = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in cases)
    (out_dir / "tokenizer_ids.json").write_text(
        '{"max_len": %d, "cases": [\n%s\n]}\n' % (MAX_LEN, lines)
    )

    cfg = json.loads((asset_dir / "config.json").read_text())
    weights = load_file(str(asset_dir / "model.safetensors"))
    refs = []
    for s in EMBED_SENTENCES:
        ids = tok.encode(s).ids
        v = bert_embed(weights, cfg, ids)
        refs.append({"text": s, "ids": ids, "embedding": [round(float(f), 6) for f in v]})
    (out_dir / "minilm_reference.json").write_text(
        json.dumps({"model": "all-MiniLM-L6-v2", "max_len": MAX_LEN, "sentences": refs}, ensure_ascii=False) + "\n"
    )
    for r in refs:
        print(len(r["ids"]), r["text"][:60])


if __name__ == "__main__":
    main()
