"""Makes potion_reference.json: potion-base-2M vectors from the reference model2vec package.

    python3 -m venv /tmp/m2v && /tmp/m2v/bin/pip install model2vec==0.10.0
    /tmp/m2v/bin/python make_potion_reference.py ../../../../.assets/potion-base-2M
"""
import json
import sys

from model2vec import StaticModel

SENTENCES = [
    "The licensee must keep records for six years.",
    "Fees are payable within thirty days of the invoice.",
    "An Authorised Person must comply with Rule 2.1.3 of GEN.",
    "Café naïve résumé — Ünïcödé text, with punctuation!",
    "section 196 of the FSMR (Financial Services and Markets Regulations 2015)",
    "xyzzyplugh qwertyuiop",
    "",
]

model = StaticModel.from_pretrained(sys.argv[1])
vecs = model.encode(SENTENCES)
out = {"sentences": [{"text": s, "embedding": [float(x) for x in v]} for s, v in zip(SENTENCES, vecs)]}
with open("potion_reference.json", "w") as f:
    json.dump(out, f)
