"""Writes bm25_ref.json: rank_bm25 (0.2.2) BM25Okapi scores for a small code
corpus, the reference for TestBM25MatchesRankBM25.

    pip install rank-bm25==0.2.2 numpy
    python3 retrieve/testdata/bm25_ref.py > retrieve/testdata/bm25_ref.json

Documents are tokenised as RLCoder does (lower().split()); the queries are
lower-cased before splitting, as our scorer does.
"""
import json

from rank_bm25 import BM25Okapi

docs = [
    "def is_string(obj: Any) -> bool:\n    return isinstance(obj, str)",
    "def is_full_string(input_string: Any) -> bool:\n    return is_string(input_string) and input_string.strip() != ''",
    "class InvalidInputError(TypeError):\n    def __init__(self, input_data: Any):\n        type_name = type(input_data).__name__",
    "import re\nimport json\nfrom typing import Any, Optional, List",
    "def reverse(input_string: str) -> str:\n    if not is_string(input_string):\n        raise InvalidInputError(input_string)\n    return input_string[::-1]",
    "",
    "x = 1\ny = 2\nz = x + y",
    "def f():\n\treturn 1\x1cdef g():\u2003return 2",
    "RETURN Return return return",
]
queries = [
    "def reverse(input_string: str) -> str:",
    "return is_string input_string",
    "InvalidInputError input_string",
    "nothing matches here",
    "return return x",
    "",
]
bm25 = BM25Okapi([d.lower().split() for d in docs])
out = {
    "docs": docs,
    "queries": queries,
    "scores": [list(map(float, bm25.get_scores(q.lower().split()))) for q in queries],
}
print(json.dumps(out, indent=1))
